#!/usr/bin/env bash
# On the GPU machine, from the repository root: every sample kernel of tests/gpu/check_samples.py
#   1. check     tilec's PTX against Triton (and the PyTorch references), same .tl, same inputs;
#   2. interp    tilec's PTX against tilec's CPU interpreter (--against-interp), on the inputs and
#                interpreter outputs that `--compile build/tilec --interp` saved in PTX_CHECK_DIR/interp;
#   3. memcheck  compute-sanitizer --tool memcheck on tilec's kernels alone (--providers tilec);
#   4. racecheck compute-sanitizer --tool racecheck, the same.
# Each step logs to OUT_DIR/<step>.log; stdout has one line per kernel (steps 1, 2), the failing
# kernels and the sanitizer's summary (steps 2, 3), and one summary line per step.
# Exit status: 0 if every step passed, 1 otherwise.
#
# usage: tests/gpu/run_checks.sh OUT_DIR PTX_CHECK_DIR
#   PTX_CHECK_DIR is what `python3 tests/gpu/check_samples.py --compile build/tilec --ptx-dir DIR
#   --interp` wrote on the machine with the compiler (without --interp, there is no DIR/interp and
#   the interp step fails).
# environment: STEPS (default "check interp memcheck racecheck"), KERNELS (a subset, space-separated),
#   COMPUTE_SANITIZER (default: compute-sanitizer on PATH, else /usr/local/cuda/bin's),
#   CHECK_TIMEOUT / SANITIZER_TIMEOUT (seconds per step; default 360 / 300; interp: CHECK_TIMEOUT).
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 OUT_DIR PTX_CHECK_DIR" >&2
  exit 2
fi
out=$1
ptx=$2
mkdir -p "$out"
steps=${STEPS:-check interp memcheck racecheck}
script=tests/gpu/check_samples.py
kernels=()
if [ -n "${KERNELS:-}" ]; then
  read -r -a names <<< "$KERNELS"
  kernels=(--kernels "${names[@]}")
fi
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}

failed=()
summaries=()

# One line per kernel, cut so that the whole output stays short; failures keep more of their line.
kernel_lines() {
  grep -E '^(ok|FAIL|MISMATCH) ' "$1" | awk '{ limit = ($1 == "ok") ? 150 : 600;
    print (length($0) > limit) ? substr($0, 1, limit) "..." : $0 }'
}

step_check() {
  local step=${1:-check} log=$out/${1:-check}.log
  local extra=()
  [ "$step" = interp ] && extra=(--against-interp)
  timeout "${CHECK_TIMEOUT:-360}" python3 "$script" --ptx-dir "$ptx" "${extra[@]}" "${kernels[@]}" > "$log" 2>&1
  local rc=$?
  head -n 1 "$log" | cut -c1-300  # the GPU and the versions
  kernel_lines "$log"
  local summary
  summary=$(grep -E '^check_samples.py: ' "$log" | tail -n 1)
  [ $rc -eq 124 ] && summary="timed out after ${CHECK_TIMEOUT:-360} s"
  [ -z "$summary" ] && summary="exit status $rc (see $log)"
  record "$step" $rc "$summary"
}

# compute-sanitizer on tilec's kernels alone. PyTorch's caching allocator is off so that every
# tensor is its own cudaMalloc: memcheck then sees an access past any tensor's end.
step_sanitizer() {
  local tool=$1 log=$out/$1.log
  if [ ! -x "$sanitizer" ]; then
    record "$tool" 1 "compute-sanitizer not found ($sanitizer)"
    return
  fi
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SANITIZER_TIMEOUT:-300}" \
    "$sanitizer" --tool "$tool" --error-exitcode 1 \
    python3 "$script" --ptx-dir "$ptx" --providers tilec "${kernels[@]}" > "$log" 2>&1
  local rc=$?
  # The sanitizer passes the checker's exit status through; a kernel that failed to run is a
  # failure of the step even so.
  if [ $rc -eq 0 ] && grep -qE '^(FAIL|MISMATCH) ' "$log"; then rc=1; fi
  # Kernels that failed to run, and the sanitizer's first reports and its summary.
  grep -E '^(FAIL|MISMATCH) ' "$log" | cut -c1-600
  grep -E '^========= (Invalid|Race|Error|Warning|ERROR|WARN)' "$log" | grep -v SUMMARY | head -n 8 | cut -c1-300
  local verdict ran
  verdict=$(grep -E '^========= (ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1 | sed 's/^========= //')
  ran=$(grep -E '^check_samples.py: ' "$log" | tail -n 1 | sed 's/^check_samples.py: //')
  local summary="${ran:-the checker did not finish}; ${verdict:-no sanitizer summary}"
  [ $rc -eq 124 ] && summary="timed out after ${SANITIZER_TIMEOUT:-300} s; $summary"
  record "$tool" $rc "$summary"
}

record() {
  local name=$1 rc=$2 summary=$3
  local word=PASS
  if [ "$rc" -ne 0 ]; then
    word="FAIL (exit $rc)"
    failed+=("$name")
  fi
  summaries+=("$name: $word: $summary")
  echo "== $name: $word: $summary"
}

for step in $steps; do
  start=$(date +%s)
  case $step in
    check) step_check check ;;
    interp) step_check interp ;;
    memcheck | racecheck) step_sanitizer "$step" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
  echo "   ($step took $(( $(date +%s) - start )) s; log $out/$step.log)"
done

echo "== summary"
for line in "${summaries[@]}"; do
  echo "   $line"
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "run_checks.sh: FAILED: ${failed[*]}"
  exit 1
fi
echo "run_checks.sh: all steps passed"
