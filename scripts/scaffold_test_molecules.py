"""The test molecules of every shared scaffold split: what a bundled base model never sees.

    python scripts/scaffold_test_molecules.py -o held.smi [--sets aqsoldb lipophilicity ...]

Each data set's scaffold test: PharmaBench's files carry theirs in a column
(``scaffold_train_test_label``); AqSolDB, AstraZeneca's logD and Biogen's assays have split
files in ``data/`` (``<name>_split.csv``, columns ``row,set``; Biogen has one per assay,
``biogen_<assay>_split.csv``). Writes one SMILES per line (as the file spells it), the form
``--exclude`` reads; molecules are matched to training rows as merged inputs are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoremol.data.registry import REGISTRY, resolve  # noqa: E402

#: every shared set with a scaffold split, and Biogen's assays with theirs
SETS = ["aqsoldb", "lipophilicity", "biogen", *(n for n in REGISTRY if n.startswith("pharmabench-"))]
BIOGEN_SPLITS = {
    "LOG SOLUBILITY PH 6.8 (ug/mL)": "biogen_solubility_split.csv",
    "LOG HLM_CLint (mL/min/kg)": "biogen_hlm_split.csv",
    "LOG MDR1-MDCK ER (B-A/A-B)": "biogen_mdr1_split.csv",
    "LOG PLASMA PROTEIN BINDING (HUMAN) (% unbound)": "biogen_ppb_human_split.csv",
}


def _rows(frame: pd.DataFrame, split_file: str) -> pd.DataFrame:
    split = pd.read_csv(ROOT / "data" / split_file)
    return frame.iloc[split.loc[split.set == "test", "row"].to_numpy()]


def scaffold_tests(names: list[str] | None = None) -> dict[str, pd.DataFrame]:
    """Per scaffold test (a data set, or ``biogen:<column>`` for one Biogen assay) its
    molecules and measured values, as ``smiles`` and ``y`` (in the registry's units)."""
    tests = {}
    for name in names or SETS:
        info = REGISTRY[name]
        frame = pd.read_csv(resolve(name))
        if name == "biogen":
            parts = {f"biogen:{column}": (_rows(frame, file), column) for column, file in BIOGEN_SPLITS.items()}
        elif info.split_col:
            parts = {name: (frame[frame[info.split_col].astype(str) == "test"], info.file_target_col)}
        else:
            parts = {name: (_rows(frame, f"{name}_split.csv"), info.target_col)}
        for key, (rows, column) in parts.items():
            values = rows[column].astype(float) + info.offset
            tests[key] = pd.DataFrame({"smiles": rows[info.smiles_col].astype(str).str.strip(), "y": values})
    return tests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=SETS, choices=SETS)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    smiles = list(dict.fromkeys(s for test in scaffold_tests(args.sets).values() for s in test.smiles))
    args.output.write_text("".join(f"{s}\n" for s in smiles))
    print(f"{len(smiles):,} scaffold-test molecules -> {args.output}")


if __name__ == "__main__":
    main()
