#!/usr/bin/env bash
# Everything that needs the GPU, in one command, from the repository root:
#
#   bash bench/run_on_gpu.sh OUT_DIR PTX_DIR
#
# PTX_DIR holds what tilec compiled on a machine with the compiler (<sample>.ptx + <sample>.json,
# e.g. vector_add.ptx and vector_add.json): `python3 bench/bench.py --compile build/tilec
# --ptx-dir out/ptx` writes them for every benchmark entry. The GPU machine has no LLVM, so this
# builds the runtime, samples and GPU tests with -DTILEC_BUILD_COMPILER=OFF
# -DTILEC_PREBUILT_PTX_DIR=PTX_DIR, then runs
#   1. ctest -L gpu            (a skipped test is a failure here: this machine has a GPU)
#   2. ctest -LE gpu           (the tests that need no GPU, as far as this machine builds them)
#   3. compute-sanitizer memcheck and initcheck on the vector_add sample
#   4. bench/bench.py          (tilec vs Triton vs PyTorch: the samples and the memory-bound suite)
#   5. bench/launch_overhead   (C++: runtime launch vs plain cuLaunchKernel; Python: Triton's launcher)
# Every step's full output goes to OUT_DIR/<step>.log and its tail to stdout; OUT_DIR/summary.txt
# lists the steps and their status; bench results are OUT_DIR/bench.md and OUT_DIR/bench.csv,
# launch overheads OUT_DIR/launch_overhead_{cpp,py}.csv.
# Exit status: 0 when every step passed, 1 otherwise, 2 on bad usage.
#
# Environment: TILEC_GPU_BUILD_DIR (default build-gpu), BENCH_ARGS (extra bench.py arguments).

set -u -o pipefail

if [ $# -ne 2 ]; then
  echo "usage: bash bench/run_on_gpu.sh OUT_DIR PTX_DIR  (from the repository root)" >&2
  exit 2
fi
if [ ! -f CMakeLists.txt ] || [ ! -d runtime ]; then
  echo "run_on_gpu.sh: run it from the repository root" >&2
  exit 2
fi
if [ ! -d "$2" ]; then
  echo "run_on_gpu.sh: PTX_DIR '$2' is not a directory" >&2
  exit 2
fi

out=$(realpath -m "$1")
ptx=$(realpath "$2")
build=${TILEC_GPU_BUILD_DIR:-build-gpu}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
failures=0

# step NAME COMMAND...: runs COMMAND with its output in NAME.log, shows the tail, records the status.
step() {
  local name=$1
  shift
  local log="$out/$name.log"
  echo "=== $name: $*"
  local start=$SECONDS
  "$@" > "$log" 2>&1
  local rc=$?
  tail -n 25 "$log" | sed 's/^/    /'
  local result="ok"
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc)"
    failures=$((failures + 1))
  fi
  printf '%-14s %-20s %4ss  %s\n' "$name" "$result" $((SECONDS - start)) "$log" | tee -a "$summary"
  return $rc
}

# A GPU test that says "skipped" on this machine did not run: count it as a failure.
ctest_gpu() {
  ctest --test-dir "$build" -L gpu --output-on-failure --no-tests=error
  local rc=$?
  if grep -q "Skipped" "$out/ctest-gpu.log"; then
    echo "run_on_gpu.sh: GPU tests were skipped on the GPU machine"
    return 1
  fi
  return $rc
}

sanitize() {
  local tool=$1
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  local extra=()
  if [ "$tool" = memcheck ]; then
    extra=(--leak-check full)
  fi
  "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 1 \
    "$build/samples/vector_add" "$ptx/vector_add.ptx" "$ptx/vector_add.json"
}

# What ran where; informational, so it never fails.
environment() {
  date -Is
  git rev-parse HEAD 2>/dev/null && git status --short 2>/dev/null | head -20
  nvidia-smi || true
  nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version || true
  cmake --version | head -1
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__)" || true
  python3 -c "import cupy; print('cupy', cupy.__version__)" || true
  echo "PTX_DIR $ptx:"
  ls -l "$ptx"
  head -c 2000 "$ptx"/*.json || true
  return 0
}

generator=()
if command -v ninja > /dev/null; then
  generator=(-G Ninja)
fi

step environment environment
if step configure cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_BUILD_COMPILER=OFF -DTILEC_PREBUILT_PTX_DIR="$ptx" &&
  step build cmake --build "$build" -j "$(nproc)"; then
  step ctest-gpu ctest_gpu
  step ctest-other ctest --test-dir "$build" -LE gpu --output-on-failure
  step memcheck sanitize memcheck
  step initcheck sanitize initcheck
fi
# The benchmark needs no build: it loads the PTX through CuPy. The samples' entries and the
# memory-bound suite (bench/suite.py), one table.
# shellcheck disable=SC2086
step bench python3 bench/bench.py --ptx-dir "$ptx" --out "$out/bench.md" ${BENCH_ARGS:-}
# Launch overhead: the runtime's launch call vs a plain cuLaunchKernel (C++), and Triton's and
# CuPy's launchers (Python), on the same one-block kernel.
if [ -x "$build/bench/tilec_launch_overhead" ]; then
  step launch-cpp "$build/bench/tilec_launch_overhead" "$ptx/bench_vector_add.ptx" \
    "$ptx/bench_vector_add.json" --csv "$out/launch_overhead_cpp.csv"
fi
step launch-py python3 bench/launch_overhead.py --ptx-dir "$ptx" --csv "$out/launch_overhead_py.csv"

echo "=== summary ($failures failed)"
cat "$summary"
[ $failures -eq 0 ]
