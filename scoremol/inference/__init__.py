"""Prediction: streaming, batched inference that keeps every input row in order."""
