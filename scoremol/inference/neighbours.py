"""The nearest training molecules of a prediction, with their measured values.

A chemist trusts a prediction more when the model has seen molecules like it, and can
check them: this finds, in the model's own embedding space (the space its applicability
domain is measured in), the training molecules nearest to each query, and returns them
with what was measured for them. It needs a model saved with its training molecules
(:attr:`scoremol.calibration.Domain.smiles`); for any other model it returns nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from scoremol.data.read import smiles_chunk
from scoremol.featurizers.dataset import featurize_chunk
from scoremol.models.trained import TrainedModel


@dataclass(frozen=True)
class Neighbour:
    """A training molecule near a query: its SMILES, its similarity to the query (0-1,
    0.5 typical), its measured values by target label (a task it was not measured for is
    absent) and a name when one is known."""

    smiles: str
    similarity: float
    values: Mapping[str, float] = field(default_factory=dict)
    name: str = ""


def has_training_examples(model: TrainedModel) -> bool:
    """Whether ``model`` carries its training molecules (bundled models do)."""
    return model.domain is not None and model.domain.smiles is not None and model.domain.labels is not None


def nearest_training(model: TrainedModel, smiles: list[str], count: int = 3) -> list[list[Neighbour]]:
    """The ``count`` nearest training molecules of each SMILES, nearest first (an empty
    list for a SMILES that cannot be featurized, and for every SMILES when the model has
    no training molecules)."""
    if not has_training_examples(model) or not smiles:
        return [[] for _ in smiles]
    networks = model.without_tree()  # the embedding is the networks': skip the tree's descriptors
    data = featurize_chunk(smiles_chunk(list(smiles)), networks.featurizer)
    prediction = networks.predict(data, domain=False, embed=True)
    index, similarity = model.domain.nearest(prediction.embedding, count)
    labels = model.target_labels
    found: list[list[Neighbour]] = [[] for _ in smiles]
    for g, row in enumerate(prediction.graph_row):
        found[int(row)] = [
            Neighbour(
                model.domain.smiles[i],
                float(s),
                {label: float(v) for label, v in zip(labels, model.domain.labels[i]) if not math.isnan(v)},
            )
            for i, s in zip(index[g], similarity[g])
        ]
    return found


__all__ = ["Neighbour", "has_training_examples", "nearest_training"]
