"""Training: the fit loop, spec-driven set-up, cross-validation and metrics."""
