"""Models shipped inside the package (rebuilt by ``scripts/build_bundled_model.sh``)."""

from pathlib import Path

from scoremol.errors import ScoremolError

BUNDLED_ESOL = Path(__file__).with_name("esol_solubility.pt")


def bundled_model_path() -> Path:
    """The bundled ESOL solubility ensemble; a clear error if the package lacks it."""
    if not BUNDLED_ESOL.is_file():
        raise ScoremolError(f"the bundled model is missing ({BUNDLED_ESOL}); pass --model or reinstall scoremol")
    return BUNDLED_ESOL
