"""Default model and training settings of ``scoremol train`` (and of ``cv``).

Chosen from ESOL cross-validation on the shared folds; see BENCHMARKS.md for the evidence.
"""

DEFAULTS: dict = {
    "arch": "dmpnn",
    "mode": "score",
    "dt": 0.5,
    "steps": 4,
    "integrator": "euler",
    "readout": "molattfp",
    "descriptors": True,
    "descriptor_set": "fast",
    "hidden": 128,
    "dropout": 0.2,
    "heads": 4,
    "epochs": 150,
    "batch_size": 32,
    "lr": 1e-3,
    "weight_decay": 1e-5,
    "val_fraction": 0.1,
    "patience": 30,
    "ensemble": 5,
    "catboost_weight": 0.4,
}
