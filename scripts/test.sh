#!/usr/bin/env bash
# Sets up and builds tilec (scripts/setup.sh), then runs the whole test suite with ctest, then
# fuzzes each libFuzzer target for a minute (scripts/fuzz.sh).
# Tests labelled `gpu` run when a GPU is present and are reported as skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test: no GPU on this machine: the tests labelled 'gpu' will be reported as skipped"
fi
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-2}"
# A short fuzzing run: each libFuzzer target for a minute, from the seed corpus, in the
# clang-19 ASan+UBSan build (./build-san; only the fuzz targets are built there). FUZZ_SECONDS=0
# skips it; scripts/fuzz.sh runs longer campaigns. Each input may take 90 s here, not fuzz.sh's 30:
# the seeds include the autotuned GEMM sample, which compiles all its configs through LLVM in about
# 25 s under the sanitizers, and CI's two cores are busy; a real hang still fails. The compile
# target starts from the samples and every 8th test kernel (FUZZ_SEED_STRIDE): all 400-odd seeds
# took some 5 minutes to run once before the minute began.
if [ "${FUZZ_SECONDS:-60}" != 0 ]; then
  FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-90} FUZZ_SEED_STRIDE=${FUZZ_SEED_STRIDE:-8} \
    scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
fi
