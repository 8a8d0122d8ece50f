"""Does weighting AqSolDB rows by reliability (Group, SD) help? CatBoost on the tree descriptors, no standardization.

Run: python bench/aqsoldb_weights.py   (results: bench/results/aqsoldb_care_2026-12-05.log)
"""

import numpy as np
import pandas as pd
from catboost import CatBoostRegressor

from scoremol.data.read import MoleculeChunk
from scoremol.featurizers.dataset import FeaturizerSettings
from scoremol.featurizers.parallel import featurize_all

d = pd.read_csv("data/aqsoldb.csv")
s = pd.read_csv("data/aqsoldb_split.csv")
chunk = MoleculeChunk(pd.DataFrame({"smiles": d.SMILES}), d.SMILES.tolist(), 0, "smiles")
data = featurize_all(chunk, FeaturizerSettings(standardize=False, descriptors=True, descriptor_set="tree"), workers=1)
x = np.full((len(d), data.descriptors.shape[1]), np.nan, np.float32)
x[data.graph_row] = data.descriptors
ok = np.zeros(len(d), bool)
ok[data.graph_row] = True
tr = s.row[(s.set == "train")].to_numpy()
tr = tr[ok[tr]]
te = s.row[s.set == "test"].to_numpy()
y = d.Solubility.to_numpy()
sd = d.SD.to_numpy()
g = d.Group.to_numpy()
schemes = {
    "none": np.ones(len(d)),
    "1/(0.5^2+SD^2)": 1 / (0.25 + sd**2),
    "drop G2,G4 (conflicting)": np.where(np.isin(g, ["G2", "G4"]), 0.0, 1.0),
    "G3,G5 x2": np.where(np.isin(g, ["G3", "G5"]), 2.0, 1.0),
}
for name, w in schemes.items():
    maes = []
    for seed in (0, 1):
        keep = tr[w[tr] > 0]
        m = CatBoostRegressor(
            iterations=2000,
            learning_rate=0.03,
            depth=6,
            random_seed=seed,
            verbose=False,
            allow_writing_files=False,
            thread_count=1,
        )
        m.fit(x[keep], y[keep], sample_weight=w[keep])
        maes.append(np.mean(np.abs(m.predict(x[te]) - y[te])))
    print(
        f"{name}: test MAE {np.mean(maes):.3f} (seeds {', '.join(f'{v:.3f}' for v in maes)}), train rows {len(keep)}",
        flush=True,
    )
