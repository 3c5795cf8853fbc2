#!/usr/bin/env bash
# Triton's own language unit tests (python/test/unit/language of Triton 3.6) on the GPU machine,
# every Triton launch also compiled by tilec for the same specialisation and compared
# (run_pytest.py + tilec_pytest_plugin.py). The tests stay outside this repository: take them from
# a checkout of Triton at its 3.6 development head (upstream commit 6cc4505, which the public
# triton-lang/Triton-to-tile-IR repository holds: `git archive 6cc4505 python/test`).
#
#   bash bench/corpus/run_triton_tests.sh OUT TILEC TRITON_TEST_DIR [TILEC_DIFF]
#
# TRITON_TEST_DIR is the folder that holds conftest.py and unit/ (python/test). FIRST (default 6)
# parametrisations of each test function are kept, spread over its list; JOBS (default 14)
# pytest-xdist workers; MINUTES (default 6) after which no new test starts. OUT/table.txt ends
# with the summary.
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT TILEC TRITON_TEST_DIR [TILEC_DIFF]" >&2
  exit 2
fi
OUT=$1 TILEC=$2 TESTS=$3
HERE=$(cd "$(dirname "$0")" && pwd)
extra=()
[ $# -ge 4 ] && extra=(--tilec-diff "$4")
# The tests at 6cc4505 import AMD queries that the Triton 3.6.0 wheel's _internal_testing lacks.
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
T=unit/language
cd "$TESTS" || exit 2
python3 "$HERE/run_pytest.py" . --name triton --tilec "$TILEC" --out "$OUT" "${extra[@]}" \
  --first "${FIRST:-6}" --spread --one-config --jobs "${JOBS:-14}" --minutes "${MINUTES:-6}" \
  --test-timeout 120 -- -p triton_tests_shim \
  $T/test_core.py $T/test_standard.py $T/test_random.py $T/test_tensor_descriptor.py \
  $T/test_block_pointer.py $T/test_tuple.py $T/test_libdevice.py $T/test_conversions.py \
  $T/test_matmul.py $T/test_pipeliner.py $T/test_frontend.py
