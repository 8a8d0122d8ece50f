"""Neural networks of scoremol: graph and dense models, one depth mechanism (SCORE).

Entry point: ``build_model(ModelConfig(...))``; see :mod:`scoremol.nn.depth` for the
depth modes and integrators shared by every architecture.
"""

from scoremol.nn.blocks import BLOCKS
from scoremol.nn.config import (
    ARCHITECTURES,
    DENSE_ARCHITECTURES,
    GRAPH_ARCHITECTURES,
    ModelConfig,
)
from scoremol.nn.dense import DenseModel
from scoremol.nn.depth import INTEGRATORS, MODES, Depth
from scoremol.nn.model import GraphModel, build_model, count_parameters
from scoremol.nn.readout import READOUTS

__all__ = [
    "ARCHITECTURES",
    "BLOCKS",
    "DENSE_ARCHITECTURES",
    "Depth",
    "DenseModel",
    "GRAPH_ARCHITECTURES",
    "GraphModel",
    "INTEGRATORS",
    "MODES",
    "ModelConfig",
    "READOUTS",
    "build_model",
    "count_parameters",
]
