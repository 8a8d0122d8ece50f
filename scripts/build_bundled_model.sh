#!/usr/bin/env bash
# Rebuild the bundled ESOL solubility model exactly as shipped: the default configuration of
# `scoremol train` (scoremol/defaults.py: a 5-member DMPNN/SCORE ensemble blended with
# CatBoost on all RDKit descriptors), trained on all 1128 ESOL molecules, seed 0.
# Needs esol.csv in $SCOREMOL_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
export SCOREMOL_DATA="${SCOREMOL_DATA:-../shared/data}"
.venv/bin/scoremol train esol --seed 0 -o scoremol/models/esol_solubility.pt
ls -l scoremol/models/esol_solubility.pt
