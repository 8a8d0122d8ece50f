"""What each part of prediction costs per molecule on one core: the budget behind the speed targets.

Run: python bench/cpu_budget.py [--models fast multitask] [--molecules 3000] [--repeats 3]

A seeded sample of the benchmark SMILES (the shared sets repeated, as
bench/predict_throughput.py makes them) is featurized and predicted in this process with one
torch thread; each part's CPU time (``time.process_time``, the best of ``--repeats``) is
divided by the molecules. A whole ``scoremol predict`` adds what no molecule pays for
(imports, model load, reading, handing work between processes, writing), and spreads the
rest over the cores: so these figures bound the throughput any scheduling could reach.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from predict_throughput import make_input  # noqa: E402

from scoremol.data.read import smiles_chunk  # noqa: E402
from scoremol.featurizers.dataset import featurize_chunk  # noqa: E402
from scoremol.models.checkpoint import load_model  # noqa: E402
from scoremol.pretrained import resolve_model  # noqa: E402


def per_molecule_us(work: Callable[[], object], molecules: int, repeats: int) -> float:
    """The best of ``repeats`` CPU times of ``work()``, in microseconds per molecule."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best / molecules * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["fast", "multitask"])
    parser.add_argument("--molecules", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        lines = make_input(20_000, Path(tmp)).read_text().splitlines()
    smiles = [line.split()[0] for line in lines if line.strip()]
    chosen = np.random.default_rng(0).choice(len(smiles), min(args.molecules, len(smiles)), replace=False)
    smiles = [smiles[i] for i in chosen]
    n = len(smiles)

    def cost(work: Callable[[], object]) -> float:
        return per_molecule_us(work, n, args.repeats)

    for name in args.models:
        model = load_model(resolve_model(Path(name))[0])
        graph_only = dataclasses.replace(model.featurizer, descriptors=False)
        featurize = cost(lambda: featurize_chunk(smiles_chunk(smiles), model.featurizer))
        graph = featurize  # without descriptors the graph is the whole featurization: not timed twice
        if graph_only != model.featurizer:
            graph = cost(lambda: featurize_chunk(smiles_chunk(smiles), graph_only))
        data = featurize_chunk(smiles_chunk(smiles), model.featurizer)
        model.predict(data)  # first call: the domain's search is laid out once per model
        predict = cost(lambda: model.predict(data, domain=False))
        with_domain = cost(lambda: model.predict(data, domain=True))
        line = f"{name}: featurize {featurize:.0f} us/mol (graph {graph:.0f}"
        line += f", descriptors {featurize - graph:.0f}); " if model.tree is not None else "); "
        line += f"predict {predict:.0f}"
        if model.tree is not None:
            networks = model.without_tree()
            network_data = featurize_chunk(smiles_chunk(smiles), networks.featurizer)
            alone = cost(lambda: networks.predict(network_data, domain=False))
            line += f" (networks {alone:.0f}, tree {predict - alone:.0f})"
        line += f"; intervals and domain {with_domain - predict:.0f}; in all {featurize + with_domain:.0f} us/mol"
        print(line, flush=True)


if __name__ == "__main__":
    main()
