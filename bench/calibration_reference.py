"""Probe: which training molecules should a multi-task interval measure similarity against?

Until 2026-12-06 one similarity served every task: the distance to the nearest training
molecules, whatever they were measured for (models now ship ``task``). A logD test
molecule may sit next to Biogen or AqSolDB molecules that carry no logD label, look
familiar, and get a narrow logD interval. This
probe trains one multi-task model on the drug-like benchmark's split, keeps the members'
held-out outputs, and calibrates twice from the same networks: similarity to every training
molecule (``all``) and to the training molecules labelled for the task
(``task``). Coverage and width of each on each task's scaffold test, same predictions.

    python bench/calibration_reference.py --option preset=fast ensemble=4 standardize=false
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent))

import drug_like_benchmark as bench  # noqa: E402

import scoremol.training.holdout as holdout  # noqa: E402
from scoremol.calibration import Calibration  # noqa: E402
from scoremol.calibration.conformal import difficulty_inputs  # noqa: E402
from scoremol.calibration.domain import NEIGHBOURS, to_similarity  # noqa: E402
from scoremol.calibration.neighbours import neighbour_distance  # noqa: E402
from scoremol.data.chunk import smiles_chunk  # noqa: E402
from scoremol.featurizers.dataset import featurize_chunk  # noqa: E402
from scoremol.spec import TrainingSpec  # noqa: E402
from scoremol.training.holdout import held_out_distances  # noqa: E402

captured: dict = {}
_calibrate = holdout.calibrate


def _copy(array):
    return array.clone() if isinstance(array, torch.Tensor) else np.array(array, copy=True)


def _spy(data, rows, y, folds, outputs, target_scaler, fit_tree=None, default_weight=0.0):
    captured.update(data=data, rows=rows, y=y, folds=folds, scaler=target_scaler, fit_tree=fit_tree)
    captured["outputs"] = [tuple(_copy(a) for a in pair) for pair in outputs]
    return _calibrate(data, rows, y, folds, outputs, target_scaler, fit_tree, default_weight)


holdout.calibrate = _spy


def held_out_predictions() -> tuple[np.ndarray, np.ndarray | None]:
    """Each held-out molecule's networks' mean and tree prediction ``[n, T]`` (trees fitted
    without its fold, as calibration fits them; None for a model without a tree)."""
    c = captured
    y, folds, outputs = c["y"], c["folds"], c["outputs"]
    net = np.full(y.shape, np.nan)
    tree = None if c["fit_tree"] is None or c["data"].descriptors is None else np.full(y.shape, np.nan)
    for k, (scaled, _) in enumerate(outputs[: int(folds.max()) + 1]):
        held = np.flatnonzero(folds == k)
        net[held] = c["scaler"].inverse(scaled[held])
        if tree is not None:
            tree[held] = c["fit_tree"](np.flatnonzero(folds != k)).predict(c["data"].descriptors[c["rows"][held]])
    return net, tree


def blended(net: np.ndarray, tree: np.ndarray | None, weight: float) -> np.ndarray:
    return net if tree is None else (1 - weight) * net + weight * tree


def best_count(distance: dict, error: np.ndarray) -> int:
    def rho(count: int) -> float:
        keep = np.isfinite(distance[count]) & np.isfinite(error)
        return float(spearmanr(distance[count][keep], error[keep]).statistic)

    return max(NEIGHBOURS, key=rho)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--option", nargs="*", default=[])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train, test, _ = bench.load_tasks("ugml")
    spec = TrainingSpec.from_options(**{**bench.parse_options(args.option), "seed": args.seed})
    model, _, _ = bench.train_multitask(spec, train)
    c = captured
    y, rows, data = c["y"], c["rows"], c["data"]
    atoms = data.atom_ptr[rows + 1] - data.atom_ptr[rows]
    reference = model.domain.reference.float()
    weight = np.asarray(model.tree.weights) if model.tree is not None else 0.0
    net_oof, tree_oof = held_out_predictions()
    oof = blended(net_oof, tree_oof, weight)
    embeddings = [e for _, e in captured["outputs"]]
    distances = {"all": held_out_distances(captured["folds"], embeddings)[0]}
    for t, label in enumerate(train):
        frame = test[label]
        feats = featurize_chunk(smiles_chunk(frame.smiles.tolist()), model.featurizer)
        pred = model.predict(feats, embed=True)
        keep = np.asarray(pred.graph_row)
        truth = frame.y.to_numpy()[keep]
        mean = pred.mean[:, t]
        err = np.abs(mean - truth)
        shipped_lo, shipped_hi = model.calibration[t].interval(mean, pred.difficulty(t), 0.9)
        rows_out = [("shipped", shipped_lo, shipped_hi, pred.similarity, model.domain.neighbours)]
        for variant in ("all", "task"):
            mask = None if variant == "all" else np.isfinite(y[:, t])
            distance, typical0 = (
                distances["all"] if mask is None else held_out_distances(captured["folds"], embeddings, [mask])[0]
            )
            chooser = 0 if variant == "all" else t
            count = best_count(distance, np.abs(y[:, chooser] - oof[:, chooser]))
            similarity = to_similarity(distance[count], 1.0)
            calibration = Calibration.fit(y[:, t] - oof[:, t], difficulty_inputs(oof[:, t], similarity, atoms))
            ref = reference if mask is None else reference[torch.from_numpy(mask)]
            test_sim = to_similarity(neighbour_distance(pred.embedding, ref, count), typical0[count])
            lo, hi = calibration.interval(mean, difficulty_inputs(mean, test_sim, pred.atoms), 0.9)
            rows_out.append((variant, lo, hi, test_sim, count))
        for variant, lo, hi, sim, count in rows_out:
            inside = (truth >= lo) & (truth <= hi)
            record = {
                "variant": variant,
                "task": label,
                "n": int(len(truth)),
                "mae": round(float(err.mean()), 4),
                "spearman": round(float(spearmanr(mean, truth).statistic), 4),
                "neighbours": int(count),
                "cover90": round(float(inside.mean()), 4),
                "width90": round(float(np.mean(hi - lo)), 4),
                "spearman_err_width": round(float(spearmanr(err, hi - lo).statistic), 4),
                "spearman_err_similarity": round(float(spearmanr(err, sim).statistic), 4),
            }
            print(json.dumps(record), flush=True)
        if tree_oof is not None:  # the blend weight each task's held-out molecules would choose
            networks = model.without_tree()
            chunk = smiles_chunk(frame.smiles.tolist())
            net_test = networks.predict(featurize_chunk(chunk, networks.featurizer), domain=False).mean[:, t]
            tree_test = model.tree.predict(feats.descriptors[np.arange(feats.num_graphs)])[:, t]
            labelled = np.isfinite(y[:, t]) & np.isfinite(net_oof[:, t])
            curve = []
            for w in np.round(np.linspace(0, 1, 11), 2):
                held_mae = float(np.mean(np.abs(blended(net_oof, tree_oof, w)[labelled, t] - y[labelled, t])))
                test_pred = (1 - w) * net_test + w * tree_test
                curve.append(
                    {
                        "weight": float(w),
                        "held_out_mae": round(held_mae, 4),
                        "test_mae": round(float(np.mean(np.abs(test_pred - truth))), 4),
                        "test_spearman": round(float(spearmanr(test_pred, truth).statistic), 4),
                    }
                )
            print(json.dumps({"task": label, "blend_curve": curve}), flush=True)


if __name__ == "__main__":
    main()
