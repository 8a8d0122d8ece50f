"""A trained model in memory: config, scalers, ensemble members; turns graphs into predictions.

Everything here is plain data (dicts, lists, arrays, tensors), which is what lets
:mod:`scoremol.models.checkpoint` save it without pickling any object.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from scoremol.calibration import Calibration, Domain
from scoremol.calibration.conformal import difficulty_inputs
from scoremol.calibration.probability import ClassCalibration
from scoremol.data.collate import GraphBatch, collate_arrays
from scoremol.data.scaling import DescriptorScaler, TargetScaler
from scoremol.errors import ScoremolError
from scoremol.featurizers.dataset import FeaturizedDataset, FeaturizerSettings, network_featurizer
from scoremol.featurizers.molecule import STATUS_OK
from scoremol.featurizers.parallel import concat_row_indices
from scoremol.models.catboost import TreeBlend
from scoremol.nn import ModelConfig, build_model, count_parameters


@dataclass
class Member:
    """One ensemble member: its weights and how its training went."""

    state_dict: dict[str, torch.Tensor]
    seed: int
    best_epoch: int
    best_val_rmse: float
    epochs_run: int
    seconds: float
    history: list[dict] = field(default_factory=list)
    #: while training only: scaled predictions and embeddings of every training graph
    outputs: tuple[np.ndarray, torch.Tensor] | None = field(default=None, repr=False, compare=False)


@dataclass
class Prediction:
    """A model's answer for ``N`` input rows, ``G`` of which have a graph: per row its
    ``status`` and ``reason``; per graph (``graph_row`` says which row each belongs to) the
    mean and member spread ``[G, T]`` in target units, and for a model with a domain each
    graph's similarity to the training data ``[G]``, why it is out of the domain (``''``
    when it is in) and its atom count ``[G]`` (what calibration reads); for a domain
    measured per target, also the similarity to each target's measured molecules
    ``[G, T]`` (what that target's calibration reads)."""

    mean: np.ndarray
    std: np.ndarray
    similarity: np.ndarray | None = None
    domain_reason: list[str] | None = None
    atoms: np.ndarray | None = None
    status: list[str] = field(default_factory=list)
    reason: list[str] = field(default_factory=list)
    graph_row: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: the first member's embedding of each graph ``[G, d]`` (the domain's space), when asked for
    embedding: torch.Tensor | None = None
    task_similarity: np.ndarray | None = None

    def difficulty(self, target: int = 0) -> np.ndarray:
        """What the calibration of ``target`` reads to size each graph's interval ``[G, 3]``."""
        similarity = self.similarity if self.task_similarity is None else self.task_similarity[:, target]
        return difficulty_inputs(self.mean[:, target], similarity, self.atoms)

    @staticmethod
    def concat(parts: list[Prediction]) -> Prediction:
        """Join the predictions of consecutive slices of rows."""
        if len(parts) == 1:
            return parts[0]

        def joined(name: str):
            values = [getattr(p, name) for p in parts]
            if values[0] is None:
                return None
            if isinstance(values[0], torch.Tensor):
                return torch.cat(values)
            return [v for value in values for v in value] if isinstance(values[0], list) else np.concatenate(values)

        return Prediction(
            mean=joined("mean"),
            std=joined("std"),
            similarity=joined("similarity"),
            domain_reason=joined("domain_reason"),
            atoms=joined("atoms"),
            status=joined("status"),
            reason=joined("reason"),
            graph_row=concat_row_indices([p.graph_row for p in parts], [len(p.status) for p in parts]),
            embedding=joined("embedding"),
            task_similarity=joined("task_similarity"),
        )


@dataclass
class TrainedModel:
    """What ``scoremol train`` produces and ``scoremol predict`` consumes."""

    model_config: ModelConfig
    featurizer: FeaturizerSettings
    target_names: list[str]
    target_units: list[str]
    target_scaler: TargetScaler
    descriptor_scaler: DescriptorScaler | None
    members: list[Member]
    train_config: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    #: the featurizer's descriptor columns the GNN fuses (None: all of them)
    descriptor_columns: list[int] | None = None
    tree: TreeBlend | None = None
    #: conformal calibration per target, from held-out training molecules (None: no intervals)
    calibration: list[Calibration | ClassCalibration] | None = None
    domain: Domain | None = None
    #: per target ``regression`` or ``classification`` (empty: every target a regression)
    target_kinds: list[str] = field(default_factory=list)
    #: per target, a yes/no target's class names as trained, negative first (else None)
    target_classes: list[list[str] | None] = field(default_factory=list)
    _modules: list[torch.nn.Module] | None = field(default=None, repr=False, compare=False)

    @property
    def target_labels(self) -> list[str]:
        """Each target's short name in output columns (``logS`` in ``logS_pred``); two
        targets that would share one (water solubility from two data sets) keep their
        column names instead."""
        from scoremol.data.registry import column_label, target_label

        labels = [target_label(name, units) for name, units in zip(self.target_names, self.target_units, strict=True)]
        return [
            column_label(name) if labels.count(label) > 1 else label for name, label in zip(self.target_names, labels)
        ]

    @property
    def classify(self) -> list[bool]:
        """Per target, whether it is a yes/no target (its mean is a logit)."""
        return [k == "classification" for k in self.target_kinds] or [False] * len(self.target_names)

    def probability(self, t: int, logits: np.ndarray) -> np.ndarray:
        """Yes/no target ``t``'s probability of its positive class from its logits: calibrated
        on held-out molecules when the model is, else the networks' own sigmoid."""
        from scoremol.calibration.probability import sigmoid

        calibration = None if self.calibration is None else self.calibration[t]
        return sigmoid(logits) if calibration is None else calibration.probability(logits)

    @property
    def is_tree_only(self) -> bool:
        """True for the CatBoost baseline saved as a model: a tree and no networks."""
        return not self.members and self.tree is not None

    @property
    def n_parameters(self) -> int:
        """Parameters of one member (an ensemble multiplies this by its size)."""
        return count_parameters(build_model(self.model_config))

    def modules(self, device: str | torch.device = "cpu") -> list[torch.nn.Module]:
        """The members as eval-mode torch modules on ``device`` (built once)."""
        if self._modules is None or (
            self._modules and next(self._modules[0].parameters()).device != torch.device(device)
        ):
            built = []
            for member in self.members:
                module = build_model(self.model_config)
                module.load_state_dict(member.state_dict)
                built.append(module.to(device).eval())
            self._modules = built
        return self._modules

    def without_tree(self) -> TrainedModel:
        """The same networks without the blended tree, featurizing only the descriptors the
        networks fuse (the tree needs 204 RDKit descriptors, which dominate featurization)."""
        if self.tree is None:
            return self
        if self.is_tree_only:
            raise ScoremolError("network_only does not apply to a CatBoost model: it has no networks")
        settings = network_featurizer(self.featurizer, self.model_config.use_descriptors, self.descriptor_columns)
        # the calibration measured the blend's errors, not the networks' alone
        return replace(self, featurizer=settings, descriptor_columns=None, tree=None, calibration=None)

    def scaled_descriptors(self, raw: np.ndarray | None) -> torch.Tensor | None:
        """Training-scaled descriptors ``[G, D]`` for a model that fuses them, else None."""
        if not self.model_config.use_descriptors:
            return None
        if raw is None or self.descriptor_scaler is None:
            raise ValueError("this model needs descriptors but none were computed")
        if self.descriptor_columns is not None:
            raw = raw[:, self.descriptor_columns]
        return torch.from_numpy(self.descriptor_scaler.transform(raw))

    def predict(
        self,
        data: FeaturizedDataset,
        ids: np.ndarray | None = None,
        batch_size: int = 256,
        device: str = "cpu",
        domain: bool = True,
        embed: bool = False,
    ) -> Prediction:
        """The one way a trained model predicts: rows ``ids`` (default: all) of a featurized
        data set, batched straight from its packed arrays (no per-molecule objects).

        ``ids`` index graphs and give a graphs-only answer; without them the answer covers
        every row of ``data`` with its status and reason. The spread is the networks'
        standard deviation; a blended tree moves the mean. ``domain``: also the similarity to
        the training data and the domain verdict (when the model has a domain); ``embed``:
        also each graph's embedding (to find its nearest training molecules).
        """
        every_row = ids is None
        ids = np.arange(data.num_graphs) if ids is None else np.asarray(ids, dtype=np.int64)
        result = self._predict_graphs(data, ids, batch_size, device, domain, embed)
        if every_row:
            result = replace(result, status=list(data.status), reason=list(data.reason), graph_row=data.graph_row)
        else:
            result = replace(
                result, status=[STATUS_OK] * len(ids), reason=[""] * len(ids), graph_row=np.arange(len(ids))
            )
        return result

    def _predict_graphs(
        self, data: FeaturizedDataset, ids: np.ndarray, batch_size: int, device: str, domain: bool, embed: bool
    ) -> Prediction:
        raw = None if data.descriptors is None else data.descriptors[ids]
        n = len(ids)
        if self.is_tree_only:
            if raw is None:
                raise ValueError("this CatBoost model reads descriptors but none were computed")
            return Prediction(self.tree.predict(raw), np.zeros((n, len(self.target_names))))
        desc = self.scaled_descriptors(raw)

        def batches():
            for s in range(0, n, batch_size):
                yield collate_arrays(
                    data.x,
                    data.edge_index,
                    data.edge_attr,
                    data.atom_ptr,
                    data.edge_ptr,
                    ids[s : s + batch_size],
                    None if desc is None else desc[s : s + batch_size],
                )

        measure = domain and self.domain is not None
        mean, std, embedding = self._run_members(batches(), n, device, embed=measure or embed)
        if self.tree is not None and n:
            if raw is None:
                raise ValueError("this model blends a tree on descriptors but none were computed")
            mean = self.tree.blend(mean, raw)
        kept = embedding if embed else None
        if not measure:
            return Prediction(mean, std, embedding=kept)
        similarity, task_similarity = self.domain.measure(embedding)
        reasons = self.domain.reasons(data.x, data.atom_ptr, ids, similarity)
        atoms = data.atom_ptr[ids + 1] - data.atom_ptr[ids]
        return Prediction(mean, std, similarity, reasons, atoms, embedding=kept, task_similarity=task_similarity)

    @torch.inference_mode()
    def _run_members(
        self, batches: Iterable[GraphBatch], n_graphs: int, device: str = "cpu", embed: bool = False
    ) -> tuple[np.ndarray, np.ndarray, torch.Tensor | None]:
        """Run every member on each batch (batches cover ``n_graphs`` graphs in order):
        mean and spread ``[G, T]``, and with ``embed`` the first member's embeddings
        ``[G, d]`` (the space the domain is measured in), else None."""
        modules = self.modules(device)
        if not modules:
            raise ValueError("this model has no networks to run")
        n_targets = len(self.target_names)
        per_member = np.zeros((len(modules), n_graphs, n_targets))
        embeddings = []
        start = 0
        for batch in batches:
            batch = batch.to(device)
            size = int(batch.num_graphs)
            for k, module in enumerate(modules):
                if k == 0 and embed:
                    out, hidden = module.predict_and_embed(batch)
                    embeddings.append(hidden.float().cpu())
                else:
                    out = module(batch)
                per_member[k, start : start + size] = out.float().cpu().numpy()
            start += size
        values = self.target_scaler.inverse(per_member) if n_graphs else per_member
        std = values.std(axis=0) if len(modules) > 1 else np.zeros(values.shape[1:])
        embedding = None
        if embed:
            embedding = torch.cat(embeddings) if embeddings else torch.zeros(0, self.model_config.hidden)
        return values.mean(axis=0), std, embedding
