#!/usr/bin/env bash
# Compiles, on a machine with the compiler, everything the GPU machine runs (it has no LLVM):
#   out/ptx        the samples' PTX for the runtime tests (vector_add), the benchmark's PTX
#                  (bench/bench.py) and the consumer project's prebuilt headers;
#   out/ptx-check  every sample kernel for tests/gpu/check_samples.py, and the interpreter's results;
#   out/debug-ops  device_print/device_assert kernels and the interpreter's output for them.
# Then, on the GPU machine, from the repository root:
#   bash bench/run_on_gpu.sh OUT out/ptx                 (GPU tests, sanitizers, benchmark)
#   bash tests/gpu/run_checks.sh OUT out/ptx-check       (every sample vs Triton, memcheck, racecheck)
#   python3 tests/gpu/check_debug_ops.py --dir out/debug-ops
set -euo pipefail
cd "$(dirname "$0")/.."
TILEC=${TILEC:-build/tilec}
rm -rf out/ptx out/ptx-check out/debug-ops
mkdir -p out/ptx
"$TILEC" samples/vector_add.tl -o out/ptx/vector_add.ptx
# bench.py derives the suite's signatures from PyTorch meta tensors: it needs torch (CPU is enough).
"${PYTHON_WITH_TORCH:-/usr/bin/python3}" bench/bench.py --compile "$TILEC" --ptx-dir out/ptx > /dev/null
bash tests/cmake/make_prebuilt_headers.sh "$TILEC" out/ptx
# --interp runs every sample on the interpreter and keeps its inputs and outputs, so that the GPU
# results can be compared with the interpreter's; generating the inputs needs a CPU PyTorch
# (Debian's python3-torch).
"${PYTHON_WITH_TORCH:-/usr/bin/python3}" tests/gpu/check_samples.py --compile "$TILEC" \
  --ptx-dir out/ptx-check --interp > /dev/null
python3 tests/gpu/check_debug_ops.py --compile "$TILEC" --out-dir out/debug-ops
echo "prepare_gpu_run: out/ptx, out/ptx-check and out/debug-ops are ready"
