"""Nearest training molecules: a model carries its training molecules and finds them again."""

from __future__ import annotations

import numpy as np
import pytest

from scoremol.inference.neighbours import has_training_examples, nearest_training
from scoremol.models.checkpoint import load_model, save_model
from tests.conftest import ESOL_TARGET, quick_config


@pytest.fixture(scope="module")
def calibrated(esol_data, tmp_path_factory):
    """Two small members on 200 molecules, calibrated (so it has a domain), saved."""
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import train_model

    config = ModelConfig(arch="gcn", mode="score", hidden=16, head_hidden=(16,), use_descriptors=False)
    train = quick_config(epochs=2, ensemble=2, calibrate=True, val_fraction=0.0)
    model = train_model(esol_data, [ESOL_TARGET], config, train, rows=np.arange(200))
    path = tmp_path_factory.mktemp("model") / "calibrated.pt"
    save_model(model, path)
    return model, path


def test_a_training_molecule_finds_itself_first_with_its_measured_value(calibrated, esol_data):
    model, path = calibrated
    back = load_model(path)  # the examples survive the model file (its embeddings: float16)
    assert has_training_examples(back) and len(back.domain.smiles) == len(back.domain.reference) == 200
    table = esol_data.table
    rows = esol_data.graph_row[np.arange(200)]
    smiles = table[esol_data.smiles_col].astype(str).to_numpy()[rows]
    labels = esol_data.column_values(ESOL_TARGET)[:200]
    assert back.domain.smiles == smiles.tolist()
    assert np.allclose(back.domain.labels[:, 0], labels, atol=1e-5)

    found = nearest_training(back, [smiles[3], "not a smiles", smiles[40]], count=3)
    assert [len(f) for f in found] == [3, 0, 3]
    first = found[0][0]
    assert first.smiles == smiles[3] and abs(first.values["logS"] - labels[3]) < 1e-5
    assert first.similarity > 0.95 and found[0][0].similarity >= found[0][1].similarity >= found[0][2].similarity
    assert found[2][0].smiles == smiles[40]


def test_a_model_without_examples_finds_nothing_and_says_so(calibrated):
    from dataclasses import replace

    model, _ = calibrated
    bare = replace(model, domain=replace(model.domain, smiles=None, labels=None))
    assert not has_training_examples(bare)
    assert nearest_training(bare, ["CCO", "c1ccccc1"]) == [[], []]
