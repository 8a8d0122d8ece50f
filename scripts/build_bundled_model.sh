#!/usr/bin/env bash
# Rebuild the bundled models exactly as shipped, seed 0:
#   solubility_multitask.pt  the default model of `scoremol predict`: `scoremol train`'s defaults on
#                            AqSolDB (water), Biogen (pH 6.8 buffer) and lipophilicity (logD 7.4) at
#                            once, molecules as given (--no-standardize: salts keep counter-ions)
#   aqsoldb_solubility.pt    the same on AqSolDB alone (`--model aqsoldb`, the default until 2026-12-05)
#   solubility_fast.pt       `--model fast` (screening): `--preset fast` on the same three sets, taught
#                            (--teacher) by the default recipe trained without a seeded tenth of their
#                            molecules (scripts/hold_out_molecules.py, --exclude), on them and on 10,000
#                            BRICS recombinations of their training molecules (scripts/make_distillation_set.py);
#                            it calibrates on that tenth, which its teacher never saw
# and, trained on all 1128 ESOL molecules:
#   esol_solubility.pt       the default configuration of `scoremol train` (scoremol/spec.py:
#                            a 4-member DMPNN/SCORE ensemble blended with CatBoost on RDKit descriptors)
#   esol_solubility_fast.pt  `--preset fast` (one hidden-64 graph-only network), `--model esol-fast`
# and on every shared ADME set but their scaffold-test molecules (scripts/scaffold_test_molecules.py):
#   adme_base.pt             `--model adme` / `--from adme`: the default's networks (no tree), 30 epochs, on
#                            AqSolDB, AstraZeneca logD, Biogen's six assays and PharmaBench's eleven sets
# Uses the copies of the data sets shipped in data/ (or $SCOREMOL_DATA when set).
# ADME=1 scripts/build_bundled_model.sh builds only adme_base.pt.
set -euo pipefail
cd "$(dirname "$0")/.."
build_adme() {
  local held
  held="$(mktemp)"
  .venv/bin/python scripts/scaffold_test_molecules.py -o "$held"
  .venv/bin/scoremol train aqsoldb lipophilicity biogen pharmabench-logd pharmabench-water-sol pharmabench-bbb \
    pharmabench-ames pharmabench-ppb pharmabench-cyp2c9 pharmabench-cyp2d6 pharmabench-cyp3a4 pharmabench-hlm \
    pharmabench-rlm pharmabench-mlm \
    -t Solubility -t exp -t "LOG SOLUBILITY PH 6.8 (ug/mL)" -t "LOG HLM_CLint (mL/min/kg)" \
    -t "LOG RLM_CLint (mL/min/kg)" -t "LOG MDR1-MDCK ER (B-A/A-B)" -t "LOG PLASMA PROTEIN BINDING (HUMAN) (% unbound)" \
    -t "LOG PLASMA PROTEIN BINDING (RAT) (% unbound)" -t "logD 7.4 (PharmaBench)" -t "water solubility (PharmaBench)" \
    -t BBB -t Ames -t "PPB fraction bound (PharmaBench)" -t "CYP2C9 (PharmaBench)" -t "CYP2D6 (PharmaBench)" \
    -t "CYP3A4 (PharmaBench)" -t "human microsomal CL (PharmaBench)" -t "rat microsomal CL (PharmaBench)" \
    -t "mouse microsomal CL (PharmaBench)" \
    --epochs 30 --blend-catboost 0 --seed 0 --exclude "$held" -o scoremol/pretrained/adme_base.pt
  rm -f "$held"
}
if [ "${ADME:-0}" = 1 ]; then build_adme; exit; fi
.venv/bin/scoremol train aqsoldb biogen lipophilicity --no-standardize --seed 0 -o scoremol/pretrained/solubility_multitask.pt
.venv/bin/scoremol train aqsoldb --no-standardize --seed 0 -o scoremol/pretrained/aqsoldb_solubility.pt
work="$(mktemp -d)"
.venv/bin/python scripts/make_distillation_set.py --molecules 10000 --seed 0 -o "$work/brics.smi"
.venv/bin/python scripts/hold_out_molecules.py aqsoldb biogen lipophilicity --no-standardize --seed 0 -o "$work/held.smi"
.venv/bin/scoremol train aqsoldb biogen lipophilicity --no-standardize --seed 0 --exclude "$work/held.smi" \
  -o "$work/fast_teacher.pt"
.venv/bin/scoremol train aqsoldb biogen lipophilicity --no-standardize --preset fast --seed 0 \
  --teacher "$work/fast_teacher.pt" --unlabelled "$work/brics.smi" -o scoremol/pretrained/solubility_fast.pt
.venv/bin/scoremol train esol --seed 0 -o scoremol/pretrained/esol_solubility.pt
.venv/bin/scoremol train esol --seed 0 --preset fast -o scoremol/pretrained/esol_solubility_fast.pt
build_adme
ls -l scoremol/pretrained/*.pt
