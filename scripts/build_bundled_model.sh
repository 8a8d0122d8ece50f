#!/usr/bin/env bash
# Rebuild the bundled ESOL solubility model exactly as shipped: the default configuration of
# `scoremol train` (scoremol/defaults.py), an ensemble of 5 members trained on all 1128 ESOL
# molecules, seeds 0-4. Needs esol.csv in $SCOREMOL_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
export SCOREMOL_DATA="${SCOREMOL_DATA:-../shared/data}"
.venv/bin/scoremol train esol --ensemble 5 --seed 0 -o scoremol/models/esol_solubility.pt
ls -l scoremol/models/esol_solubility.pt
