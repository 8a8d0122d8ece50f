"""From training inputs to featurized data: what to featurize for a spec, which columns are
targets and of which kind, which values are unusable, how several inputs merge into one
table, which molecules ``--exclude`` leaves out. :mod:`scoremol.training.setup` turns the
result into configs and a fit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from scoremol.data.tasks import TaskDecision, decide_tasks, encode_classes
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings
from scoremol.featurizers.descriptors import TREE_DESCRIPTORS, descriptor_names, union
from scoremol.spec import TrainingSpec

if TYPE_CHECKING:
    from scoremol.data.registry import DatasetInfo


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


def renames_target(input: str) -> bool:
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
    units = [entry.units_of(t) if entry else "" for t in targets]
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
    hashes: list  # (content hash, targets, offset) per input: what the merged table is cached under
    tasks: list  # TaskDecision per target, in ``targets`` order


def shifted(column: pd.Series, offset: float) -> pd.Series:
    """``column`` (text, as read) with ``offset`` added to its numbers; other text stays, to
    be reported per row."""
    if not offset:
        return column
    values = pd.to_numeric(column, errors="coerce")
    return column.where(values.isna(), (values + offset).map(lambda v: repr(float(v))))


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
            chunk.frame[entry.target_col] = shifted(chunk.frame[entry.target_col], entry.offset)
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
            units.setdefault(t, entry.units_of(t) if entry else "")
            all_targets += [t] if t not in all_targets else []
        sources.append(MergeSource(name, chunk, own))
        hashes.append((sha256_file(path), own, entry.offset if entry else 0.0))
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
