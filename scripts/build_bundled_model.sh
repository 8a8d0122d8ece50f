#!/usr/bin/env bash
# Rebuild the bundled ESOL solubility models exactly as shipped, trained on all 1128 ESOL
# molecules, seed 0:
#   esol_solubility.pt       the default configuration of `scoremol train` (scoremol/spec.py:
#                            a 5-member DMPNN/SCORE ensemble blended with CatBoost on RDKit descriptors)
#   esol_solubility_fast.pt  `--preset fast` (one hidden-64 graph-only network), `--model fast`
# Uses the copy of esol.csv shipped in data/ (or $SCOREMOL_DATA when set).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/scoremol train esol --seed 0 -o scoremol/pretrained/esol_solubility.pt
.venv/bin/scoremol train esol --seed 0 --preset fast -o scoremol/pretrained/esol_solubility_fast.pt
ls -l scoremol/pretrained/esol_solubility*.pt
