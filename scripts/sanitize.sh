#!/usr/bin/env bash
# Builds tilec, its runtime and every test with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang-19, ./build-san, TILEC_SANITIZE=address,undefined) and runs the whole ctest suite there.
# The same build directory holds the libFuzzer targets (scripts/fuzz.sh builds them there).
#
#   scripts/sanitize.sh                 # build, then ctest (GPU tests skipped without a GPU)
#   scripts/sanitize.sh -R lit          # extra arguments go to ctest
#
# A sanitizer report fails the test that triggered it (-fno-sanitize-recover=all; LeakSanitizer
# reports make the process exit non-zero). The fuzz.* tests are left to scripts/fuzz.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${SANITIZE_BUILD_DIR:-build-san}
JOBS=${JOBS:-2}

source scripts/install-missing.sh
install_missing sanitize clang-19 libclang-rt-19-dev

CC=clang-19 CXX=clang++-19 cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTILEC_FUZZ=ON -DTILEC_SANITIZE=address,undefined >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -LE fuzz "$@"
