"""Per-atom contributions of a trained model's prediction, and the similarity map that shows them.

A chemist asks *which part of the molecule* makes a prediction low; the answer here is one
signed number per heavy atom, in the target's units: positive means the atom raises the
prediction (for log S: makes the molecule more soluble). A yes/no target is explained on the
logit of its positive class (the networks' output, before calibration): positive means the
atom makes the positive class (mutagenic, crosses the barrier) likelier.

Four methods act on the networks' input graph (the ensemble's mean, every member):

- ``removal`` (the default): an atom's contribution is the prediction minus the prediction
  of the graph without that atom and its bonds. One batch of ``N + 1`` graphs, no
  gradients. It was chosen by measurement (``bench/explain_faithfulness.py``,
  ``bench/results/explain_2026-12-05.md``, ESOL test fold): it is the only method whose
  top-k atoms move the prediction more than k random atoms at every k = 1..5 under both
  ways of masking (deleting the atoms: 1.35 vs 0.71 at k = 1, 3.05 vs 2.28 at k = 5;
  zeroing their features: 0.72 vs 0.43, 1.58 vs 1.11). The others beat random masking only
  for k <= 2 when atoms are deleted. Cost: about 160 molecules/s on one thread, 14x slower
  than predict.
- ``occlusion``: the same with the atom's feature row zeroed instead (faster, 240/s).
- ``ig``: integrated gradients from the all-zero feature matrix (``steps`` points).
- ``gradient``: gradient x input at the molecule itself (one backward pass).

What is explained is the networks' share of the prediction: a blended CatBoost tree reads
whole-molecule RDKit descriptors, which no atom mask changes, so its part of the prediction
has no atom attribution; the networks' contributions are scaled by their blend weight
``1 - w`` so they are in units of the blended prediction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from rdkit import Chem

from scoremol.data.collate import GraphBatch, make_batch
from scoremol.featurizers.descriptors import compute_descriptors
from scoremol.featurizers.graph import mol_to_arrays
from scoremol.featurizers.molecule import STATUS_OK, parse_molecule
from scoremol.models.trained import TrainedModel

METHODS = ("occlusion", "removal", "ig", "gradient")
DEFAULT_METHOD = "removal"


@dataclass
class AtomContributions:
    """One molecule's explanation: per-atom contributions in target units (atom order of
    ``mol``), the model's full prediction, or why there is none (``status``/``reason``)."""

    smiles: str
    task: str
    method: str
    status: str = STATUS_OK
    reason: str = ""
    mol: Chem.Mol | None = field(default=None, repr=False)
    weights: list[float] = field(default_factory=list)
    #: the model's prediction of ``task`` (the blend, as ``scoremol predict`` gives it)
    prediction: float = float("nan")
    #: ``task``'s short name, as in the prediction columns (``logS``)
    label: str = ""

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def to_dict(self) -> dict:
        """Plain data (JSON-ready): each atom with its index, element and contribution."""
        atoms = []
        if self.mol is not None:
            atoms = [
                {"index": a.GetIdx(), "element": a.GetSymbol(), "contribution": w}
                for a, w in zip(self.mol.GetAtoms(), self.weights, strict=True)
            ]
        return {
            "smiles": self.smiles,
            "task": self.task,
            "method": self.method,
            "status": self.status,
            "reason": self.reason,
            "prediction": None if not np.isfinite(self.prediction) else self.prediction,
            "atoms": atoms,
        }


@dataclass
class _Molecule:
    """What the networks read for one molecule, as tensors."""

    x: torch.Tensor  # [n, F]
    edge_index: torch.Tensor  # [2, E]
    edge_attr: torch.Tensor  # [E, B]
    descriptors: torch.Tensor | None  # [1, D] scaled, for models that fuse them
    raw_descriptors: np.ndarray | None  # [1, D'] raw, for a blended tree


def task_index(model: TrainedModel, task: int | str) -> int:
    """The index of ``task``: an index, a target name or its label (``logS``)."""
    if isinstance(task, int):
        if not 0 <= task < len(model.target_names):
            raise ValueError(f"task {task} out of range: the model has {len(model.target_names)} task(s)")
        return task
    for i, (name, label) in enumerate(zip(model.target_names, model.target_labels)):
        if task in (name, label):
            return i
    labels = ", ".join(model.target_labels)
    raise ValueError(f"unknown task {task!r}; the model's tasks are: {labels}")


def featurize_molecule(model: TrainedModel, mol: Chem.Mol) -> _Molecule:
    """The network inputs of one (already parsed, standardized) molecule."""
    g = mol_to_arrays(mol)
    raw = None
    if model.featurizer.descriptors:
        raw = compute_descriptors(mol, model.featurizer.descriptor_names)[None, :].astype(np.float32)
    desc = model.scaled_descriptors(raw)
    return _Molecule(
        torch.from_numpy(g.x),
        torch.from_numpy(g.edge_index),
        torch.from_numpy(g.edge_attr),
        None if desc is None else desc.float(),
        raw,
    )


def replicate(m: _Molecule, xs: torch.Tensor) -> GraphBatch:
    """One batch of ``S`` copies of molecule ``m`` whose atom features are ``xs`` ``[S, n, F]``."""
    s, n = xs.shape[0], xs.shape[1]
    offsets = (torch.arange(s, dtype=torch.int64) * n).repeat_interleave(m.edge_index.shape[1])
    edge_index = m.edge_index.repeat(1, s) + offsets
    desc = None if m.descriptors is None else m.descriptors.expand(s, -1)
    return make_batch(
        xs.reshape(s * n, -1), edge_index, m.edge_attr.repeat(s, 1), np.full(s, n, dtype=np.int64), None, desc
    )


def without_atoms(m: _Molecule, drop: list[list[int]]) -> GraphBatch:
    """One batch of copies of ``m``, copy ``j`` with the atoms ``drop[j]`` and their bonds removed
    (the other way to mask atoms: the graph no longer has them at all)."""
    n = m.x.shape[0]
    xs, eis, eas, counts = [], [], [], []
    start = 0
    for atoms in drop:
        keep = torch.ones(n, dtype=torch.bool)
        keep[list(atoms)] = False
        new_id = torch.cumsum(keep, 0) - 1
        edge_keep = keep[m.edge_index[0]] & keep[m.edge_index[1]]
        xs.append(m.x[keep])
        eis.append(new_id[m.edge_index[:, edge_keep]] + start)
        eas.append(m.edge_attr[edge_keep])
        counts.append(int(keep.sum()))
        start += counts[-1]
    desc = None if m.descriptors is None else m.descriptors.expand(len(drop), -1)
    return make_batch(torch.cat(xs), torch.cat(eis, dim=1), torch.cat(eas), np.array(counts), None, desc)


def network_output(model: TrainedModel, batch: GraphBatch, t: int) -> torch.Tensor:
    """The ensemble's mean of target ``t`` per graph of ``batch`` ``[S]``, in target units
    (before any tree blend); differentiable in ``batch.x``."""
    outs = [module(batch)[:, t] for module in model.modules("cpu")]
    scaled = torch.stack(outs).float().mean(0)
    return model.target_scaler.inverse_one(scaled, t)


def network_share(model: TrainedModel, t: int) -> float:
    """The networks' weight in the blended prediction of target ``t`` (1 without a tree)."""
    if model.tree is None or model.tree.blobs[t] is None:
        return 1.0
    return 1.0 - float(model.tree.weights[t])


def attribute(
    model: TrainedModel, m: _Molecule, t: int, method: str = DEFAULT_METHOD, steps: int = 16
) -> tuple[np.ndarray, float]:
    """Per-atom contributions ``[n]`` of the networks' prediction of target ``t``, in target
    units (not yet scaled by the network share), and that prediction for the whole molecule
    (the masking methods' first graph is the molecule itself: no second pass)."""
    n = m.x.shape[0]
    if method in ("occlusion", "removal"):
        if method == "occlusion":
            xs = m.x.unsqueeze(0).repeat(n + 1, 1, 1)
            idx = torch.arange(n)
            xs[idx + 1, idx] = 0.0
            batch = replicate(m, xs)
        else:  # a one-atom molecule without its atom is no graph: its contribution is 0
            batch = without_atoms(m, [[]] + ([[i] for i in range(n)] if n > 1 else []))
        with torch.inference_mode():
            out = network_output(model, batch, t).numpy().astype(np.float64)
        return (out[0] - out[1:] if n > 1 or method == "occlusion" else np.zeros(1)), float(out[0])
    if method not in ("ig", "gradient"):
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    alphas = (torch.arange(steps, dtype=torch.float32) + 0.5) / steps if method == "ig" else torch.ones(1)
    xs = (alphas[:, None, None] * m.x.unsqueeze(0)).requires_grad_(True)
    with torch.enable_grad():
        out = network_output(model, replicate(m, xs), t)
        (grad,) = torch.autograd.grad(out.sum(), xs)
    with torch.inference_mode():
        full = float(network_output(model, replicate(m, m.x.unsqueeze(0)), t)[0])
    return (grad.mean(0) * m.x).sum(1).double().numpy(), full


def atom_contributions(
    model: TrainedModel,
    smiles: list[str],
    task: int | str = 0,
    method: str = DEFAULT_METHOD,
    steps: int = 16,
) -> list[AtomContributions]:
    """Explain the prediction of ``task`` for each SMILES (one result per input, in order).

    Invalid or unsupported SMILES give a result with ``status``/``reason`` (as ``predict``
    reports them), never an exception; only a bad ``task`` or ``method`` raises.
    """
    if model.is_tree_only:
        raise ValueError("a CatBoost-only model has no networks to explain")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    t = task_index(model, task)
    share = network_share(model, t)
    results = []
    for text in smiles:
        parsed = parse_molecule(text, model.featurizer.standardize)
        result = AtomContributions(
            str(text), model.target_names[t], method, parsed.status, parsed.reason, label=model.target_labels[t]
        )
        if parsed.status != STATUS_OK:
            results.append(result)
            continue
        try:
            m = featurize_molecule(model, parsed.mol)
            weights, net = attribute(model, m, t, method, steps)
            weights = weights * share
            prediction = net
            if share < 1.0:
                tree = float(model.tree.predict(m.raw_descriptors)[0, t])
                prediction = share * net + (1.0 - share) * tree
        except Exception as exc:  # defensive: one molecule must not stop the others
            result.status, result.reason = "invalid", f"explanation failed: {exc}".splitlines()[0]
            results.append(result)
            continue
        result.mol, result.weights, result.prediction = parsed.mol, [float(w) for w in weights], prediction
        results.append(result)
    return results


def similarity_map(
    mol: Chem.Mol | str,
    weights: list[float],
    size: tuple[int, int] = (320, 280),
    resolution: float = 0.1,
    fill: bool = True,
    png: bool = True,
) -> tuple[str, bytes]:
    """The atom contributions drawn on the structure (RDKit similarity map: green where an
    atom raises the prediction, pink where it lowers it), as SVG text and PNG bytes
    (``b""`` without ``png``).

    ``resolution`` (grid step, in bond lengths) and ``fill`` set the SVG's size: the filled
    default grid is about 0.5 MB of SVG for a small molecule; an HTML report with many maps
    draws contour lines only at 0.2 (about 30 kB).
    """
    from rdkit.Chem import Draw
    from rdkit.Chem.Draw import rdMolDraw2D

    if isinstance(mol, str):
        parsed = Chem.MolFromSmiles(mol)
        if parsed is None:
            raise ValueError(f"invalid SMILES: {mol!r}")
        mol = parsed
    if len(weights) != mol.GetNumAtoms():
        raise ValueError(f"{len(weights)} weights for a molecule of {mol.GetNumAtoms()} atoms")
    weights = [float(w) for w in weights]
    drawn = rdMolDraw2D.PrepareMolForDrawing(Chem.Mol(mol), addChiralHs=False)
    conf = drawn.GetConformer()
    locs = [Chem.rdGeometry.Point2D(p.x, p.y) for p in (conf.GetAtomPosition(i) for i in range(drawn.GetNumAtoms()))]
    sigma = 0.3 * _shortest_bond(drawn)
    params = Draw.ContourParams()
    params.fillGrid, params.gridResolution, params.extraGridPadding = fill, resolution, 0.5
    params.setColourMap([(0.84, 0.19, 0.42), (1.0, 1.0, 1.0), (0.10, 0.60, 0.28)])  # pink, white, green
    images = []
    drawers = [rdMolDraw2D.MolDraw2DSVG(*size)] + ([rdMolDraw2D.MolDraw2DCairo(*size)] if png else [])
    for drawer in drawers:
        Draw.ContourAndDrawGaussians(drawer, locs, weights, [sigma] * len(weights), nContours=10, params=params)
        drawer.drawOptions().clearBackground = False
        drawer.DrawMolecule(drawn)
        drawer.FinishDrawing()
        images.append(drawer.GetDrawingText())
    return images[0], images[1] if png else b""


def _shortest_bond(mol: Chem.Mol) -> float:
    """The shortest 2D bond length (the Gaussians' width scales with it), 1.0 without bonds."""
    conf = mol.GetConformer()
    lengths = [
        (conf.GetAtomPosition(b.GetBeginAtomIdx()) - conf.GetAtomPosition(b.GetEndAtomIdx())).Length()
        for b in mol.GetBonds()
    ]
    return min(lengths) if lengths else 1.0
