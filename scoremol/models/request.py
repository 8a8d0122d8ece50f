"""What ``export`` asks for (light to import: the command line's options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoremol.spec import INPUT, OUTPUT, option


@dataclass(frozen=True)
class ExportRequest:
    """Which model ``export`` writes as ONNX, and where."""

    output_dir: Path = option(
        Path("onnx"), "Folder for networks.onnx, tree_<k>.onnx and model.json.", OUTPUT, short="-o"
    )
    model: Path | None = option(None, "Model file or bundled model (default: the default model).", INPUT, short="-m")
