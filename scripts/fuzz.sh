#!/usr/bin/env bash
# Builds tilec's libFuzzer targets (clang-19, ASan+UBSan, ./build-san: the build directory that
# scripts/sanitize.sh runs the whole suite in) and runs each in turn.
#
#   scripts/fuzz.sh                   # build, then every target for 600 s
#   scripts/fuzz.sh 60 signature      # build, then only tilec_fuzz_signature for 60 s
#   scripts/fuzz.sh --no-build 60     # run what is built (ctest's fuzz.* tests do this)
#   FUZZ_SEED_STRIDE=8 scripts/fuzz.sh 60   # seed the compile target with every 8th test kernel
#
# Corpora grow in build-san/corpus/TARGET (seeded from samples/ and tests/), crashing inputs land
# in build-san/crashes/TARGET/. Exits non-zero when a target finds a crash, a leak, a timeout
# (30 s per input under the sanitizers, FUZZ_TIMEOUT to change it: on a loaded machine a slow
# input is not a hang) or an input needing more than 2 GB: for a compiler each
# is a bug.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BUILD=1
if [ "${1:-}" = "--no-build" ]; then
  BUILD=0
  shift
fi
SECONDS_PER_TARGET=${1:-600}
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(compile signature)
BUILD_DIR=${FUZZ_BUILD_DIR:-build-san}
JOBS=${JOBS:-2}

if ((BUILD)); then
  source scripts/install-missing.sh
  install_missing fuzz clang-19 libclang-rt-19-dev
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTILEC_FUZZ=ON -DTILEC_SANITIZE=address,undefined >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]/#/tilec_fuzz_}"
fi

# Seeds: every kernel source of the repository; every signature given on a command line there.
# FUZZ_SEED_STRIDE=N keeps the samples and stdlib and every Nth test kernel: libFuzzer runs every
# seed once before it starts the clock, some 5 minutes for all 400-odd under the sanitizers.
seed_compile() {
  # Not limits.tl: its kernels sit at the compile-time budgets, seconds each under the sanitizers.
  find "$ROOT/samples" "$ROOT/stdlib" -name '*.tl' -size -64k
  find "$ROOT/tests" -name '*.tl' -size -64k -not -name limits.tl | sort |
    awk -v stride="${FUZZ_SEED_STRIDE:-1}" '(NR - 1) % stride == 0'
}
seed_signature() {
  local out=$1
  grep -rhoE -- '-s "[^"]*"' "$ROOT/samples" "$ROOT/tests" "$ROOT/bench" 2>/dev/null |
    sed -e 's/^-s "//' -e 's/"$//' | sort -u | while IFS= read -r sig; do
      printf '%s' "$sig" >"$out/$(printf '%s' "$sig" | md5sum | cut -c1-16)"
    done
}

status=0
for target in "${TARGETS[@]}"; do
  binary="$BUILD_DIR/tests/fuzz/tilec_fuzz_$target"
  corpus="$BUILD_DIR/corpus/$target"
  crashes="$BUILD_DIR/crashes/$target"
  mkdir -p "$corpus" "$crashes"
  if [ -z "$(ls -A "$corpus")" ]; then
    if [ "$target" = compile ]; then
      seed_compile | while IFS= read -r f; do cp "$f" "$corpus/$(md5sum <"$f" | cut -c1-16).tl"; done
    else
      seed_signature "$corpus"
    fi
  fi
  dict=()
  [ -f "$ROOT/tests/fuzz/$target.dict" ] && dict=(-dict="$ROOT/tests/fuzz/$target.dict")
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s ($(ls "$corpus" | wc -l) inputs in the corpus)"
  log="$BUILD_DIR/fuzz-$target.log"
  if ASAN_OPTIONS=detect_leaks=1 "$binary" "$corpus" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" \
       -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
       -artifact_prefix="$crashes/" >"$log" 2>&1; then
    grep -E "^(Done|stat::number_of_executed_units)" "$log" || true
  else
    status=1
    echo "fuzz: $target FAILED; see $log and $crashes/"
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5 || true
  fi
done
exit $status
