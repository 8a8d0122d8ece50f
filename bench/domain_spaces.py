"""Which similarity ranks errors on new scaffolds best: the embedding space of the domain.

Run: python bench/domain_spaces.py {default,fast} [--model PATH]

Trains the system on the AqSolDB scaffold split's `train` rows (seed 0, molecules as given;
or loads `--model`), then for the 1,972 `test` molecules compares distances to the training
molecules in each member's head (last hidden layer) and graph readout, for 1 and 10
neighbours, single member, mean over members and concatenated, and the Morgan
fingerprint (radius 2, 2,048 bits) Tanimoto similarity: Spearman with |error|, and the
out/in RMSE ratio when the 5 % or 10 % least similar test molecules are called out.
Exploratory: it reads the test set's own errors to compare the candidates; the shipped
threshold is chosen on held-out training molecules (see `uncertainty_benchmark.py`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import rdFingerprintGenerator
from scipy.stats import spearmanr

from scoremol.api import ScoreRegressor
from scoremol.calibration.neighbours import neighbour_distance
from scoremol.data.collate import collate_arrays
from scoremol.data.read import smiles_chunk
from scoremol.featurizers.dataset import featurize_chunk
from scoremol.models.checkpoint import load_model
from scoremol.nn.head import get_descriptors

sys.path.insert(0, str(Path(__file__).parent))
from uncertainty_benchmark import SPECS, aqsoldb_split  # noqa: E402


def spaces(model, smiles):
    """Per member: head (last hidden layer) and readout vectors; the featurized data; the prediction."""
    data = featurize_chunk(smiles_chunk(list(smiles)), model.featurizer)
    ids = np.arange(data.num_graphs)
    desc = model.scaled_descriptors(None if data.descriptors is None else data.descriptors[ids])
    out = {}
    with torch.inference_mode():
        for k, module in enumerate(model.modules("cpu")):
            heads, readouts = [], []
            for s in range(0, len(ids), 256):
                batch = collate_arrays(
                    data.x,
                    data.edge_index,
                    data.edge_attr,
                    data.atom_ptr,
                    data.edge_ptr,
                    ids[s : s + 256],
                    None if desc is None else desc[s : s + 256],
                )
                g = module.embed(batch)
                readouts.append(g)
                if module.config.use_descriptors:
                    g = torch.cat([g, get_descriptors(batch, g.size(0), module.config.descriptor_dim, g)], dim=-1)
                heads.append(module.head.embed(g))
            out[("head", k)], out[("readout", k)] = torch.cat(heads), torch.cat(readouts)
    return data, out, model.predict(data, domain=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("system", choices=sorted(SPECS))
    parser.add_argument("--model", default=None, help="a model trained on the split's train rows")
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    train, test = aqsoldb_split()
    if args.model:
        model = load_model(args.model)
    else:
        fitted = ScoreRegressor(**SPECS[args.system], seed=0, standardize=False)
        model = fitted.fit(train.SMILES.tolist(), train.Solubility.to_numpy()).model_
    train_data, train_space, _ = spaces(model, train.SMILES)
    test_data, test_space, result = spaces(model, test.SMILES)
    error = np.abs(test.Solubility.to_numpy()[test_data.graph_row] - result.mean[:, 0])

    def report(name: str, distance: np.ndarray) -> None:
        ratios = []
        for share in (0.05, 0.10):
            out = distance >= np.quantile(distance, 1 - share)
            ratios.append(np.sqrt(np.mean(error[out] ** 2) / np.mean(error[~out] ** 2)))
        rho = spearmanr(distance, error).statistic
        print(f"{name:28s} Spearman {rho:.3f}   out/in RMSE at 5 % {ratios[0]:.2f}x, at 10 % {ratios[1]:.2f}x")

    members = len(model.members)
    for kind in ("head", "readout"):
        for count in (1, 10):
            per_member = []
            for k in range(members):
                d = neighbour_distance(test_space[(kind, k)], train_space[(kind, k)], count)
                per_member.append(d / np.median(d))
            report(f"{kind}, member 0, k={count}", per_member[0])
            if members > 1:
                report(f"{kind}, mean of members, k={count}", np.mean(per_member, axis=0))
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)

    def fingerprints(smiles, data):
        return [generator.GetFingerprint(Chem.MolFromSmiles(s)) for s in np.asarray(smiles)[data.graph_row]]

    reference = fingerprints(train.SMILES, train_data)
    queries = fingerprints(test.SMILES, test_data)
    similarity = np.array([DataStructs.BulkTanimotoSimilarity(f, reference) for f in queries])
    report("Tanimoto, nearest", -similarity.max(axis=1))
    if members > 1:
        report("members' spread", result.std[:, 0])


if __name__ == "__main__":
    main()
