"""Distillation: a trained model (the teacher) labels what the training data lack.

A small, fast network learns a large model best from many examples labelled by that
model. With a teacher, every training molecule gets the teacher's prediction for each
target it has no measurement of (molecules with no measurement at all, such as an
``--unlabelled`` file, get all of them), while measured labels stay as measured. The
student is calibrated and its domain fitted on measured labels only (see
:func:`scoremol.training.fit.train_model`'s ``measured``), so its intervals speak for
measurements, not for agreement with the teacher. Those labels must also be new to the
teacher: a teacher that learned them passes them on through its labels of every other
molecule, and the student's held-out errors come out too small (drug-like benchmark:
buffer coverage 0.817 for a nominal 0.90). So when the teacher never saw some measured
molecules (it was trained with ``--exclude``), the student holds out only those.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from scoremol.data.read import smiles_chunk
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset
from scoremol.models.trained import TrainedModel


def teacher_path(name: str) -> Path:
    """The teacher's file: a model file, or a bundled model's when no such file exists."""
    from scoremol.pretrained import resolve_model

    path, _ = resolve_model(Path(name))
    if not path.is_file():
        raise ScoremolError(f"teacher {name}: no such model file or bundled model")
    return path


def load_teacher(name: str) -> TrainedModel:
    """The teacher: a model file, or the name of a bundled model when no such file exists."""
    from scoremol.models.checkpoint import load_model

    return load_model(teacher_path(name))


def teacher_predictions(
    data: FeaturizedDataset,
    targets: list[str],
    teacher: TrainedModel,
    workers: int | None = None,
    ids: np.ndarray | None = None,
) -> np.ndarray:
    """The teacher's prediction ``[G, T]`` of each ``targets`` column (matched by name) for
    the graphs ``ids`` of ``data`` (default: all; NaN rows for the others); NaN where the
    teacher cannot read the molecule. The teacher parses the SMILES with its own settings
    (descriptors, standardization). A yes/no target's prediction is its probability (a soft
    label: calibrated when the teacher is), not its logit."""
    from scoremol.featurizers.parallel import featurize_all

    lacking = [t for t in targets if t not in teacher.target_names]
    if lacking:
        raise ScoremolError(f"the teacher predicts {', '.join(teacher.target_names)}; it has no {', '.join(lacking)}")
    ids = np.arange(data.num_graphs) if ids is None else np.asarray(ids, dtype=np.int64)
    out = np.full((data.num_graphs, len(targets)), np.nan)
    if len(ids) == 0:
        return out
    features = featurize_all(smiles_chunk(data.graph_smiles(ids)), teacher.featurizer, workers)
    result = teacher.predict(features, domain=False)
    columns = [teacher.target_names.index(t) for t in targets]
    mean = result.mean.copy()
    for t, classify in enumerate(teacher.classify):
        if classify:
            mean[:, t] = teacher.probability(t, mean[:, t])
    out[ids[result.graph_row]] = mean[:, columns]
    return out


def unseen_by_teacher(data: FeaturizedDataset, teacher: TrainedModel) -> np.ndarray | None:
    """Which graphs of ``data`` hold a molecule the teacher never trained on (bool ``[G]``),
    matched as merged inputs are (:func:`~scoremol.featurizers.merge.molecule_key`, with the
    teacher's standardization); None when the teacher's file does not list its training
    molecules. A student calibrated on molecules its teacher saw gets intervals that are
    too narrow: the teacher's labels on every other molecule carry theirs."""
    from scoremol.featurizers.merge import molecule_keys

    domain = teacher.domain
    if domain is None or domain.smiles is None:
        return None
    standardize = teacher.featurizer.standardize
    seen = set(molecule_keys(domain.smiles, standardize))
    keys = molecule_keys(data.graph_smiles(np.arange(data.num_graphs)), standardize)
    return np.array([k is not None and k not in seen for k in keys], dtype=bool)


def with_teacher_labels(
    data: FeaturizedDataset, targets: list[str], teacher: TrainedModel, workers: int | None = None
) -> tuple[FeaturizedDataset, np.ndarray]:
    """``data`` with every missing label of ``targets`` filled by the teacher, and which
    labels were measured (bool ``[G, T]``, per graph)."""
    measured = np.stack([np.isfinite(data.column_values(t)) for t in targets], axis=1)
    if measured.all():
        return data, measured
    labels = teacher_predictions(data, targets, teacher, workers, ids=np.flatnonzero(~measured.all(axis=1)))
    table = data.table.copy()
    for t, name in enumerate(targets):
        column = table[name].to_numpy(dtype=object, copy=True)
        fill = ~measured[:, t] & np.isfinite(labels[:, t])
        column[data.graph_row[fill]] = [repr(float(v)) for v in labels[fill, t]]
        table[name] = column
    return dataclasses.replace(data, table=table), measured
