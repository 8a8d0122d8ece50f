"""From a :class:`~scoremol.spec.TrainingSpec` to training data, validated configs and a model.

Everything ``train`` and ``cv`` decide before the fit loop lives here, so the command line,
:class:`scoremol.ScoreRegressor` and scripts share one policy: which descriptors to compute
(the network's set, plus the blended tree's), which column is the target, which configs the
spec stands for. Errors name the spec's parameters, never a command-line flag.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from scoremol.data.tasks import TaskDecision, decide_tasks, encode_classes
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings
from scoremol.featurizers.descriptors import TREE_DESCRIPTORS, descriptor_names, union
from scoremol.spec import TrainingSpec
from scoremol.training.labels import MIN_LABELLED, require_labelled

PhaseCallback = Callable[[str], None]  # called with the name of a phase as it starts

if TYPE_CHECKING:
    from scoremol.data.registry import DatasetInfo
    from scoremol.models.trained import TrainedModel
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import EpochCallback, TrainConfig


@dataclass(frozen=True)
class FeaturePlan:
    """What to featurize for a spec: the settings, and the descriptors the network fuses
    when the data carry more for a blended tree (None: every descriptor column)."""

    settings: FeaturizerSettings
    network_descriptors: tuple[str, ...] | None


def feature_plan(spec: TrainingSpec) -> FeaturePlan:
    """The featurizer settings a (resolved) spec needs.

    A CatBoost blend reads every RDKit descriptor but the slowest (the ``tree`` set), so
    those are computed and the network keeps its own, usually much smaller, set.
    """
    spec = spec.resolved()
    try:
        wanted = descriptor_names(spec.descriptor_set)
    except ValueError as exc:
        raise ScoremolError(f"descriptor_set: {exc}") from None
    fuses = bool(spec.descriptors)
    network = None
    if spec.blend_catboost > 0:
        network = wanted if fuses else None
        wanted = union(TREE_DESCRIPTORS, network or ())
    settings = FeaturizerSettings(
        standardize=spec.standardize, descriptors=fuses or spec.blend_catboost > 0, descriptor_set=list(wanted)
    )  # a list: normalized like a set name
    return FeaturePlan(settings, network)


def load_training_data(
    input: str,
    spec: TrainingSpec,
    smiles_col: str | None = None,
    fmt: str | None = None,
) -> tuple[FeaturizedDataset, DatasetInfo | None, FeaturePlan]:
    """Featurize (or load) a training input for ``spec``; also its registry entry, if any."""
    from scoremol.data.registry import REGISTRY, resolve_input
    from scoremol.featurizers.cache import featurize_input

    plan = feature_plan(spec)
    path, entry = resolve_input(input)
    data, _ = featurize_input(path, plan.settings, smiles_col or _registered_smiles(entry), fmt)
    wanted = plan.settings.descriptor_names
    if plan.settings.descriptors and data.descriptors is not None and data.settings.descriptor_names != wanted:
        missing = sorted(set(wanted) - set(data.settings.descriptor_names))
        if missing:
            raise ScoremolError(f"{input} lacks descriptors {', '.join(missing[:5])}; featurize it with them")
        data = data.select_descriptors(wanted)  # a features file with more descriptors
    if data.settings.standardize != plan.settings.standardize:  # a features file made with other settings
        raise ScoremolError(
            f"{input} holds standardized molecules; train it without --no-standardize, or featurize it again "
            "with --no-standardize"
            if data.settings.standardize
            else f"{input} holds molecules as given (featurized with --no-standardize); train it with "
            "--no-standardize, or featurize it again without"
        )
    if data.num_rows == 0:
        raise ScoremolError(f"no data rows in {input}")
    if plan.settings.descriptors and data.descriptors is None:
        raise ScoremolError(f"{input} has no descriptors; featurize it with descriptors")
    if entry is None and data.source_sha256:
        entry = next((d for d in REGISTRY.values() if data.source_sha256 in d.sha256), None)
    return data, entry, plan


def _registered_smiles(entry: DatasetInfo | None) -> str | None:
    """A registered data set's SMILES column when the usual names would not find it
    (PharmaBench's ``Smiles_unify``)."""
    return entry.smiles_col if entry is not None and entry.smiles_col.lower() != "smiles" else None


def default_targets(entry: DatasetInfo | None, data: FeaturizedDataset) -> list[str]:
    """The registry's target when the input is a known data set, else an error listing columns."""
    if entry is not None:
        return [entry.target_col]
    columns = [str(c) for c in data.table.columns if c != data.smiles_col]
    raise ScoremolError(f"name the target column (one of: {', '.join(columns)})")


#: Spec fields that are ModelConfig / TrainConfig fields of the same name.
_MODEL_FIELDS = ("arch", "dt", "steps", "integrator", "learnable_dt", "readout", "hidden", "dropout", "heads")
_TRAIN_FIELDS = (
    "epochs",
    "batch_size",
    "lr",
    "weight_decay",
    "seed",
    "val_fraction",
    "patience",
    "ensemble",
    "device",
    "calibrate",
    "task_balance",
    "neighbours",
    "domain_dims",
    "base_pull",
    "class_weights",
)


#: A target beyond this magnitude cannot be standardized in float32 beside ordinary values
#: (1e308 would turn every other value's scaled target into zero, or overflow).
MAX_TARGET_MAGNITUDE = 1e15


@dataclass(frozen=True)
class ExcludedTargets:
    """Target values left out of training: written, but not a usable finite number."""

    source: str
    target: str
    rows: list[int]  # data rows, counted from 1 after the header
    values: list[str]

    def sentence(self) -> str:
        shown = ", ".join(f"{r} ({v!r})" for r, v in zip(self.rows[:5], self.values[:5]))
        more = f" and {len(self.rows) - 5} more" if len(self.rows) > 5 else ""
        return (
            f"{len(self.rows)} {self.target!r} value(s) in {self.source} are not finite numbers "
            f"of at most {MAX_TARGET_MAGNITUDE:.0e} in magnitude and are left out: rows {shown}{more}"
        )


def unusable_targets(column: pd.Series) -> np.ndarray:
    """Cells of a text column that hold something but not a usable number: ``inf``,
    ``nan``, words, or values beyond :data:`MAX_TARGET_MAGNITUDE` (empty cells are missing
    values, not errors)."""
    text = column.astype(str).str.strip()
    values = pd.to_numeric(text, errors="coerce").to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        usable = np.isfinite(values) & (np.abs(values) <= MAX_TARGET_MAGNITUDE)
    return text.ne("").to_numpy() & ~usable


def exclude_unusable_targets(table: pd.DataFrame, targets: list[str], source: str) -> list[ExcludedTargets]:
    """Blank (in place) every target cell of ``table`` that :func:`unusable_targets` finds,
    and say which; a target whose every written value is unusable is a one-line error.

    A target column read as numbers (Parquet) becomes text first, a null an empty cell, as
    every CSV cell is read: the rest of training reads one kind of column.
    """
    excluded = []
    for target in targets:
        if target not in table.columns:
            continue  # a missing column is reported where the column is read
        column = table[target]
        if not pd.api.types.is_object_dtype(column) and not pd.api.types.is_string_dtype(column):
            table[target] = column.astype(object).where(column.notna(), "").astype(str)
        bad = unusable_targets(table[target])
        if not bad.any():
            continue
        rows = np.flatnonzero(bad)
        item = ExcludedTargets(source, target, [int(r) + 1 for r in rows], table[target].iloc[rows].tolist())
        written = table[target].astype(str).str.strip().ne("").to_numpy()
        if bad.sum() == written.sum():
            raise ScoremolError(f"no usable target values: {item.sentence()}")
        table.loc[bad, target] = ""
        excluded.append(item)
    return excluded


@dataclass(frozen=True)
class TrainingJob:
    """A training input made ready for a spec: featurized data, targets and their units,
    and the target values left out because they were not finite numbers."""

    spec: TrainingSpec
    data: FeaturizedDataset
    targets: list[str]
    units: list[str]
    plan: FeaturePlan
    excluded: list[ExcludedTargets] = dataclasses.field(default_factory=list)
    #: the graphs to train on (None: all); ``left_out``: how many ``--exclude`` removed
    rows: np.ndarray | None = None
    left_out: int = 0
    #: each target's kind (regression or a yes/no classification) and why it was read so
    tasks: list[TaskDecision] = dataclasses.field(default_factory=list)


def prepare_training(
    input: str | Sequence[str],
    spec: TrainingSpec,
    targets: list[str] | None = None,
    smiles_col: str | None = None,
    fmt: str | None = None,
    unlabelled: str | None = None,
    exclude: str | None = None,
    task_types: dict[str, str] | None = None,
) -> TrainingJob:
    """Resolve ``spec``, check its device, featurize the input and pick the targets (the data
    set's own when none are named): everything ``train`` and ``cv`` do before fitting.

    Several inputs train one multi-task model on their merged molecules
    (:func:`merge_training_inputs`); one input is read as it is. ``unlabelled`` molecules
    (for the spec's teacher to label) join the merge as an input without targets.
    ``exclude`` (a molecule file or data set name): its molecules are left out of the
    job's training rows, matched as merged inputs are. ``task_types`` (target -> regression
    or classification) overrides what each target's values say (:mod:`scoremol.data.tasks`).
    """
    from scoremol.device import resolve_device

    resolve_device(spec.device)
    spec = spec.resolved()
    inputs = [input] if isinstance(input, str) else list(input)
    if unlabelled is not None and spec.teacher is None:
        raise ScoremolError("--unlabelled molecules need a --teacher to label them")
    if spec.teacher is not None:  # found before the inputs are featurized, not after
        from scoremol.training.teacher import teacher_path

        teacher_path(spec.teacher)
    if spec.base is not None:  # found and checked before the inputs are featurized, not after
        from scoremol.training.base import check_spec

        check_spec(spec)
    repeated = sorted({t for t in targets or [] if targets.count(t) > 1})
    if repeated:  # two heads learning one column would give two columns that disagree
        raise ScoremolError(f"--target {', '.join(repeated)} is named more than once")
    if len(inputs) > 1 or unlabelled is not None or _renames_target(inputs[0]):
        job = merge_training_inputs(inputs, spec, targets, smiles_col, fmt, unlabelled, task_types)
    else:
        job = read_training_input(inputs[0], spec, targets, smiles_col, fmt, task_types)
    if exclude is None:
        return job
    rows, left_out = rows_without(job.data, exclude, spec.standardize)
    return dataclasses.replace(job, rows=rows, left_out=left_out)


def _renames_target(input: str) -> bool:
    """Whether ``input`` is a data set whose target column is read under another name
    (PharmaBench's ``value``): such a file is read as a merge source, which renames it."""
    from scoremol.data.registry import REGISTRY

    entry = REGISTRY.get(input.lower()) if isinstance(input, str) and input != "-" else None
    if entry is None:
        from scoremol.data.registry import lookup_by_checksum

        entry = lookup_by_checksum(input) if input != "-" else None
    return entry is not None and bool(entry.file_target_col)


def apply_task_types(
    frames: list[pd.DataFrame],
    targets: list[str],
    task_types: dict[str, str] | None,
    known: dict[str, str] | None = None,
) -> list[TaskDecision]:
    """Decide each target's kind from its cells in every frame (:func:`decide_tasks`) and
    write a classification target's cells as 0/1 in place, before unusable values are
    looked for (``yes``/``no`` would be unusable numbers)."""
    cells = {t: [v for f in frames if t in f.columns for v in f[t].astype(str).tolist()] for t in targets}
    decisions = decide_tasks(cells, task_types, known)
    for decision in decisions:
        if decision.classes is None:
            continue
        for frame in frames:
            if decision.target in frame.columns:
                frame[decision.target] = encode_classes(frame[decision.target], decision)
    return decisions


def rows_without(data: FeaturizedDataset, exclude: str, standardize: bool) -> tuple[np.ndarray, int]:
    """The graphs of ``data`` whose molecule is not in ``exclude`` (a molecule file or data
    set name; matched by :func:`~scoremol.featurizers.merge.molecule_key`), and how many
    graphs that leaves out. A teacher trained this way has never seen those molecules, so a
    student can calibrate on them (:mod:`scoremol.training.teacher`)."""
    from scoremol.data.read import read_input
    from scoremol.data.registry import resolve_input
    from scoremol.featurizers.cache import is_features_file
    from scoremol.featurizers.merge import molecule_keys

    path, entry = resolve_input(exclude)
    if path == "-" or is_features_file(path):
        raise ScoremolError(f"--exclude {exclude}: give a molecule file or data set name")
    try:
        molecules = read_input(path, _registered_smiles(entry)).smiles
    except ScoremolError as exc:
        raise ScoremolError(f"--exclude {exclude}: {exc}") from None
    listed = set(molecule_keys(molecules, standardize)) - {None}
    if not listed:
        raise ScoremolError(f"--exclude {exclude}: no line of it is a molecule RDKit can read")
    keys = molecule_keys(data.graph_smiles(np.arange(data.num_graphs)), standardize)
    keep = np.array([k is None or k not in listed for k in keys], dtype=bool)
    return np.flatnonzero(keep), int((~keep).sum())


def read_training_input(
    input: str,
    spec: TrainingSpec,
    targets: list[str] | None,
    smiles_col: str | None,
    fmt: str | None,
    task_types: dict[str, str] | None = None,
) -> TrainingJob:
    """One training input as a job, read as it is (``spec`` resolved)."""
    data, entry, plan = load_training_data(input, spec, smiles_col, fmt)
    targets = list(targets) if targets else default_targets(entry, data)
    units = [entry.units if entry and t == entry.target_col else "" for t in targets]
    table = data.table.copy()
    known = {entry.target_col: entry.kind} if entry else {}
    tasks = apply_task_types([table], targets, task_types, known)
    excluded = exclude_unusable_targets(table, targets, input)
    data = dataclasses.replace(data, table=table)
    return TrainingJob(spec, data, targets, units, plan, excluded, tasks=tasks)


class LabelledSources(NamedTuple):
    """Training inputs as merge sources (see :func:`labelled_sources`)."""

    sources: list  # MergeSource per input
    units: list[str]  # per target, in ``targets`` order
    targets: list[str]
    excluded: list  # targets left out as unusable
    hashes: list  # (content hash, targets) per input: what the merged table is cached under
    tasks: list  # TaskDecision per target, in ``targets`` order


def labelled_sources(
    inputs: Sequence[str],
    targets: list[str] | None = None,
    smiles_col: str | None = None,
    fmt: str | None = None,
    task_types: dict[str, str] | None = None,
) -> LabelledSources:
    """Each training input read once as a merge source with the named ``targets`` it has
    (or its data set's own). What ``train`` merges, and what
    ``scripts/hold_out_molecules.py`` samples from."""
    from scoremol.data.read import read_input
    from scoremol.data.registry import resolve_input, sha256_file
    from scoremol.featurizers.cache import is_features_file
    from scoremol.featurizers.merge import MergeSource

    sources, units, all_targets, excluded, hashes, known = [], {}, [], [], [], {}
    for name in inputs:
        path, entry = resolve_input(name)
        if path == "-" or is_features_file(path):
            raise ScoremolError(f"{name}: several inputs must be files or data set names (not features or stdin)")
        try:
            chunk = read_input(path, smiles_col or _registered_smiles(entry), fmt)  # each input read once
        except ScoremolError as exc:
            raise ScoremolError(f"{name}: {exc}") from None
        chunk.frame = chunk.frame.copy()
        if entry is not None and entry.file_target_col and entry.file_target_col in chunk.frame.columns:
            chunk.frame = chunk.frame.rename(columns={entry.file_target_col: entry.target_col})
        if entry is not None:
            known[entry.target_col] = entry.kind
        if targets:
            own = [t for t in targets if t in chunk.frame.columns]
        elif entry is not None:
            own = [entry.target_col]
        else:
            raise ScoremolError(f"{name}: name its target column(s) with --target (no data set default)")
        if not own:
            raise ScoremolError(f"{name} has none of the targets {', '.join(targets)}")
        for t in own:
            units.setdefault(t, entry.units if entry and t == entry.target_col else "")
            all_targets += [t] if t not in all_targets else []
        sources.append(MergeSource(name, chunk, own))
        hashes.append((sha256_file(path), own))
    missing = [t for t in targets or [] if t not in all_targets]
    if missing:
        raise ScoremolError(f"no input has the target column(s) {', '.join(missing)}")
    tasks = apply_task_types([s.chunk.frame for s in sources], all_targets, task_types, known)
    for source in sources:
        excluded += exclude_unusable_targets(source.chunk.frame, source.targets, source.name)
    units_list = [units[t] for t in all_targets]
    return LabelledSources(sources, units_list, all_targets, excluded, hashes, tasks)


def merge_training_inputs(
    inputs: Sequence[str],
    spec: TrainingSpec,
    targets: list[str] | None = None,
    smiles_col: str | None = None,
    fmt: str | None = None,
    unlabelled: str | None = None,
    task_types: dict[str, str] | None = None,
) -> TrainingJob:
    """One multi-task job from several inputs: each brings the named ``targets`` it has (or,
    when none are named, its data set's own), molecules are matched across inputs
    (:mod:`scoremol.featurizers.merge`) and the merged table is featurized once (cached).
    ``unlabelled`` adds its molecules (SMILES column found by name, format by extension)
    with no labels; one already among the labelled molecules adds nothing."""
    import hashlib
    import json

    from scoremol.data.atomic import atomic_write
    from scoremol.data.read import read_input
    from scoremol.data.registry import cache_dir, resolve_input, sha256_file
    from scoremol.featurizers.cache import featurize_input, is_features_file
    from scoremol.featurizers.merge import MergeSource, merge_sources
    from scoremol.featurizers.molecule import PARSE_RULES_VERSION

    spec = spec.resolved()
    plan = feature_plan(spec)
    sources, units, all_targets, excluded, hashes, tasks = labelled_sources(
        inputs, targets, smiles_col, fmt, task_types
    )
    if unlabelled is not None:
        path, _ = resolve_input(unlabelled)
        if path == "-" or is_features_file(path):
            raise ScoremolError(f"--unlabelled {unlabelled}: give a molecule file or data set name")
        sources.append(MergeSource(unlabelled, read_input(path), []))
        hashes.append((sha256_file(path), []))
    key = json.dumps(
        {
            "sources": hashes,
            "smiles_col": smiles_col,
            "fmt": fmt,
            "standardize": spec.standardize,
            "parse_rules": PARSE_RULES_VERSION,
            "tasks": [t.to_dict() for t in tasks],
        },
        sort_keys=True,
    )
    merged = cache_dir() / "merged" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.csv"
    if not merged.is_file():
        chunk, _ = merge_sources(sources, spec.standardize)
        with atomic_write(merged, "w") as handle:
            chunk.frame.to_csv(handle, index=False)
    data, _ = featurize_input(str(merged), plan.settings, "smiles", "csv")
    return TrainingJob(spec, data, all_targets, units, plan, excluded, tasks=tasks)


def make_configs(
    data: FeaturizedDataset,
    targets: list[str],
    spec: TrainingSpec,
    network_descriptors: tuple[str, ...] | None = None,
) -> tuple[ModelConfig, TrainConfig]:
    """Validated model and training configs for a network spec; a bad value is a one-line error."""
    from scoremol.nn import ModelConfig
    from scoremol.training.fit import TrainConfig

    spec = spec.resolved()
    values = np.stack([data.column_values(t) for t in targets], axis=1)  # unknown column: clear error
    labelled = int(np.isfinite(values).any(axis=1).sum())
    require_labelled(labelled)
    counts = np.isfinite(values).sum(axis=0)
    if len(targets) > 1 and counts.min() < MIN_LABELLED:  # a head that learns nothing would predict noise
        t = int(counts.argmin())
        raise ScoremolError(
            f"target {targets[t]!r} has {int(counts[t])} usable label(s), fewer than {MIN_LABELLED}: give its values "
            "or leave it out"
        )
    if spec.descriptors and data.descriptors is None:
        raise ScoremolError(f"arch {spec.arch!r} with descriptors=True needs featurized descriptors")
    n_desc = 0
    if spec.descriptors:
        n_desc = len(network_descriptors) if network_descriptors is not None else data.descriptors.shape[1]
    shape = {name: getattr(spec, name) for name in _MODEL_FIELDS}
    try:
        model_config = ModelConfig(
            **shape,
            mode="score" if spec.arch == "score-mlp" else spec.mode,
            use_descriptors=bool(spec.descriptors),
            descriptor_dim=n_desc,
            n_targets=len(targets),
        )
    except ValueError as exc:
        raise ScoremolError(str(exc)) from None
    train_config = TrainConfig(
        **{name: getattr(spec, name) for name in _TRAIN_FIELDS}, catboost_weight=spec.blend_catboost
    )
    train_config.validate()
    return model_config, train_config


def fit_spec(
    data: FeaturizedDataset,
    targets: list[str],
    spec: TrainingSpec,
    network_descriptors: tuple[str, ...] | None = None,
    rows: np.ndarray | None = None,
    units: list[str] | None = None,
    on_epoch: EpochCallback | None = None,
    on_phase: PhaseCallback | None = None,
    tasks: list[TaskDecision] | None = None,
) -> TrainedModel:
    """Train what ``spec`` describes on graphs ``rows`` of ``data``: networks (optionally
    blended with CatBoost) or, for ``arch="catboost"``, the tree alone. ``tasks``: each
    target's kind (:attr:`TrainingJob.tasks`; default: every target a regression)."""
    spec = spec.resolved()
    measured = calibrate_on = None
    if spec.teacher is not None:
        from scoremol.training.teacher import load_teacher, unseen_by_teacher, with_teacher_labels

        if on_phase is not None:
            on_phase("Teacher labels")
        teacher = load_teacher(spec.teacher)
        data, measured = with_teacher_labels(data, targets, teacher)
        unseen = unseen_by_teacher(data, teacher)
        calibrate_on = None if unseen is None else unseen & measured.any(axis=1)
    if spec.is_catboost:
        if spec.base is not None:
            raise ScoremolError("--from fine-tunes networks; the CatBoost baseline has none")
        return fit_catboost_model(data, targets, spec, rows, units, on_phase, tasks)
    from scoremol.training.fit import train_model

    model_config, train_config = make_configs(data, targets, spec, network_descriptors)
    from scoremol.training.base import base_for

    base = base_for(spec, targets, units, tasks, model_config, data, network_descriptors)
    model = train_model(
        data,
        targets,
        model_config,
        train_config,
        rows=rows,
        target_units=units,
        on_epoch=on_epoch,
        gnn_descriptors=network_descriptors,
        on_phase=on_phase,
        measured=measured,
        calibrate_on=calibrate_on,
        tasks=tasks,
        base=base,
    )
    model.train_config["spec"] = spec.to_dict()  # what to rebuild it from (ScoreRegressor.load)
    return model


def fit_catboost_model(
    data: FeaturizedDataset,
    targets: list[str],
    spec: TrainingSpec,
    rows: np.ndarray | None = None,
    units: list[str] | None = None,
    on_phase: PhaseCallback | None = None,
    tasks: list[TaskDecision] | None = None,
) -> TrainedModel:
    """The CatBoost baseline as a model file like any other: a tree of weight 1, no networks
    (a classifier's raw logit for a yes/no target)."""
    from scoremol.data.scaling import TargetScaler
    from scoremol.models.catboost import fit_tree_blend
    from scoremol.models.trained import TrainedModel
    from scoremol.nn import ModelConfig

    spec = spec.resolved()
    if len(targets) != 1:
        raise ScoremolError("the CatBoost baseline predicts one target; name a single target")
    if spec.morgan:
        raise ScoremolError("a saved CatBoost model reads descriptors only; morgan=True is for cross-validation")
    rows = np.arange(data.num_graphs) if rows is None else np.asarray(rows)
    y = data.column_values(targets[0])
    labelled = rows[np.isfinite(y[rows])]
    require_labelled(len(labelled))
    if on_phase is not None:
        on_phase("CatBoost")
    start = time.perf_counter()
    classify = tuple(t.classes is not None for t in tasks or ())
    tree = fit_tree_blend(
        data, targets, labelled, 1.0, seed=spec.seed, val_fraction=spec.val_fraction, classify=classify
    )
    return TrainedModel(
        model_config=ModelConfig(),  # unused: no networks
        featurizer=data.settings,
        target_names=list(targets),
        target_units=list(units or [""]),
        target_scaler=TargetScaler.fit(y[labelled][:, None], keep=np.asarray(classify or (False,))),
        descriptor_scaler=None,
        members=[],
        train_config={"spec": spec.to_dict()},
        metrics={
            "n_train_molecules": int(len(labelled)),
            "best_val_rmse_mean": None,
            "best_val_rmse": [],
            "best_epochs": [],
            "seconds": time.perf_counter() - start,
            "parameters": 0,
        },
        tree=tree,
        target_kinds=[t.kind for t in tasks] if tasks else [],
        target_classes=[list(t.classes) if t.classes else None for t in tasks] if tasks else [],
    )
