"""Models shipped inside the package (rebuilt by ``scripts/build_bundled_model.sh``)."""

from pathlib import Path

from scoremol.errors import ScoremolError

BUNDLED_ESOL = Path(__file__).with_name("esol_solubility.pt")
#: Names ``predict --model`` accepts for shipped models: the default (accurate) ESOL model
#: and the ``--preset fast`` one for screening.
BUNDLED: dict[str, Path] = {
    "esol": BUNDLED_ESOL,
    "fast": Path(__file__).with_name("esol_solubility_fast.pt"),
}


def bundled_model_path(name: str = "esol") -> Path:
    """A bundled ESOL solubility model; a clear error if the package lacks it."""
    path = BUNDLED[name]
    if not path.is_file():
        raise ScoremolError(f"the bundled model is missing ({path}); pass --model or reinstall scoremol")
    return path


def resolve_model(requested: Path | None) -> tuple[Path, str | None]:
    """``(model file, bundled name or None)``: an existing file wins over a bundled name."""
    if requested is None:
        return bundled_model_path(), "esol"
    if not requested.exists() and str(requested) in BUNDLED:
        return bundled_model_path(str(requested)), str(requested)
    return requested, None
