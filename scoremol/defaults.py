"""Default model and training settings of ``scoremol train`` (and of ``cv``), and presets.

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

#: Named bundles of settings (``--preset``); an option given explicitly always wins.
#: ``accurate`` is DEFAULTS: five networks with descriptors blended with CatBoost (ESOL 0.514
#: RMSE, minutes per fit). ``fast`` is one small network on the graph alone, 60 epochs on
#: every training molecule (ESOL 0.559 RMSE, about 30 s per fit on two cores; no RDKit
#: descriptors at prediction time, so screening is limited by parsing and featurization).
PRESETS: dict[str, dict] = {
    "accurate": {},
    "fast": {
        "hidden": 64,
        "dropout": 0.0,
        "descriptors": False,
        "epochs": 60,
        "val_fraction": 0.0,
        "ensemble": 1,
        "catboost_weight": 0.0,
    },
}


def preset_settings(name: str) -> dict:
    """DEFAULTS overlaid with preset ``name``; ``ValueError`` names the valid presets."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return {**DEFAULTS, **PRESETS[name]}
