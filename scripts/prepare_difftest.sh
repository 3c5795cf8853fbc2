#!/usr/bin/env bash
# Prepares out/difftest for the GPU machine: COUNT generated programs (default 2000), each with
# its PTX and metadata compiled here by tilec, its input buffers, the generator's expected outputs
# and the interpreter's outputs (tests/difftest/README.md). Then, on the GPU machine, from the
# repository root with out/ carried over:
#   python3 tests/difftest/gpu_run.py --dir out/difftest
# usage: scripts/prepare_difftest.sh [COUNT] [SEED]      environment: TILEC (default build/tilec)
set -euo pipefail
cd "$(dirname "$0")/.."
TILEC=${TILEC:-build/tilec}
# ptxas is skipped here (the ctest assembles its programs): the GPU driver assembles this PTX.
python3 tests/difftest/difftest.py prepare --tilec "$TILEC" --out out/difftest \
  --count "${1:-2000}" --seed "${2:-7}" --ptxas '' "${@:3}" || status=$?
echo "prepare_difftest: out/difftest is ready (failures above, if any, are also in" \
  "out/difftest/results.json); on the GPU machine: python3 tests/difftest/gpu_run.py --dir out/difftest"
exit "${status:-0}"
