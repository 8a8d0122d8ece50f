"""Distillation probe (issue 28): can one fast network learn the multi-task default?

The teacher is the multi-task default trained on the drug-like benchmark's training rows
(every scaffold-test molecule of any task removed). The student, one network of the fast
preset unless ``--option`` says otherwise, learns all three tasks at once from the training
rows (their own labels; the teacher's where a row lacks a task) and from new molecules
labelled by the teacher: the BRICS recombinations of ``scripts/make_distillation_set.py``,
built from training molecules only. Both are scored on the three scaffold tests and
appended to ``bench/results/drug_like_probes.csv``. Accuracy only: a student calibrated on
teacher labels would measure its agreement with the teacher, so it trains uncalibrated.

    python scripts/make_distillation_set.py --molecules 30000 -o /tmp/distill.smi
    python bench/distillation_probe.py /tmp/distill.smi --teacher /tmp/teacher.pt
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from rdkit import RDLogger

sys.path.insert(0, str(Path(__file__).parent))
from drug_like_benchmark import ROOT, append_row, load_tasks, parse_options, score, train_multitask  # noqa: E402

from scoremol.api import ScoreRegressor  # noqa: E402
from scoremol.models.checkpoint import load_model, save_model  # noqa: E402
from scoremol.spec import TrainingSpec  # noqa: E402


def teacher_model(path: Path, train: dict, seed: int) -> tuple[ScoreRegressor, float]:
    """The multi-task default (molecules as given, as the benchmark trains it), read from
    ``path`` if it is there, else trained and saved there; and its training seconds."""
    spec = TrainingSpec.from_options(standardize=False, seed=seed)
    regressor = ScoreRegressor(**spec.to_dict())
    if path.exists():
        regressor.model_ = load_model(path)
        return regressor, float(regressor.model_.metrics["seconds"])
    model, _, seconds = train_multitask(spec, train)
    save_model(model, path)
    regressor.model_ = model
    return regressor, seconds


def student_table(teacher: ScoreRegressor, train: dict, extra: list[str]) -> tuple[list[str], np.ndarray]:
    """SMILES and ``[n, 3]`` labels: each training row's own label for its task and the
    teacher's for the other two, then the extra molecules with the teacher's three."""
    smiles = [s for frame in train.values() for s in frame.smiles]
    labels = np.asarray(teacher.predict(smiles + extra), dtype=np.float64)
    start = 0
    for t, frame in enumerate(train.values()):
        labels[start : start + len(frame), t] = frame.y.to_numpy()
        start += len(frame)
    keep = np.isfinite(labels).all(axis=1)
    return [s for s, k in zip(smiles + extra, keep, strict=True) if k], labels[keep]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("molecules", type=Path, help="unlabelled SMILES, one per line")
    parser.add_argument("--teacher", type=Path, required=True, help="the teacher's model file (made if missing)")
    parser.add_argument("--option", nargs="*", default=[], help="the student's TrainingSpec options (name=value)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tag", default="distill")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "drug_like_probes.csv")
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    train, test, _ = load_tasks("ugml")
    teacher, teacher_seconds = teacher_model(args.teacher, train, args.seed)
    extra = [line.split()[0] for line in args.molecules.read_text().splitlines() if line.strip()]
    start = time.perf_counter()
    smiles, labels = student_table(teacher, train, extra)
    label_seconds = time.perf_counter() - start
    options = {"preset": "fast", "standardize": False, "calibrate": False, **parse_options(args.option)}
    student = ScoreRegressor(**TrainingSpec.from_options(**options, seed=args.seed).to_dict())
    start = time.perf_counter()
    student.fit(smiles, labels)
    student_seconds = time.perf_counter() - start
    for system, model, seconds in (("teacher", teacher, teacher_seconds), ("student", student, student_seconds)):
        for t, (label, frame) in enumerate(test.items()):
            pred = np.asarray(model.predict(frame.smiles.tolist()))[:, t]
            row = {
                "system": system,
                "seed": args.seed,
                "tag": args.tag,
                "options": json.dumps(options if system == "student" else {"standardize": False}),
                **score(label, pred, frame.y.to_numpy()),
                "train_s": seconds,
                "molecules": len(smiles) if system == "student" else None,
                "label_s": label_seconds if system == "student" else None,
            }
            print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
            append_row(args.out, row)


if __name__ == "__main__":
    os.environ.setdefault("SCOREMOL_WORKERS", "2")
    sys.exit(main())
