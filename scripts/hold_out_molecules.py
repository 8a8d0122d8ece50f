"""A seeded share of the distinct molecules of some training inputs, for ``train --exclude``.

A student calibrated on molecules its teacher learned gets intervals that are too narrow
(the teacher's labels carry theirs). So the bundled fast model's teacher is trained without
these molecules, and the student, trained on everything, calibrates on them
(``scripts/build_bundled_model.sh``). The molecules are those ``train`` would merge from
the same inputs (rows without a target are not training molecules and are never chosen).

    python scripts/hold_out_molecules.py aqsoldb biogen lipophilicity --no-standardize -o held.smi
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoremol.featurizers.merge import merge_sources, sample_molecules  # noqa: E402
from scoremol.training.setup import labelled_sources  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", help="data set names or molecule files")
    parser.add_argument("--target", action="append", help="target column(s), as train's --target")
    parser.add_argument("--fraction", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-standardize", dest="standardize", action="store_false")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    sources = labelled_sources(args.inputs, args.target).sources
    merged, _ = merge_sources(sources, args.standardize)  # train's training molecules, one row each
    chosen = sample_molecules(merged.smiles, args.fraction, args.seed, args.standardize)
    args.output.write_text("".join(f"{s}\n" for s in chosen))
    print(f"{len(chosen):,} molecules -> {args.output}")


if __name__ == "__main__":
    main()
