#!/usr/bin/env bash
# Liger-Kernel's and unsloth's ops on the GPU, every Triton launch compiled by tilec for the same
# specialisation and compared with Triton's results (tilec_diff).  Both projects run at once (the
# machine has cores to spare; each compiles its kernels one at a time).
#
#   bash bench/corpus/run_on_gpu.sh OUT TILEC LIGER_DIR UNSLOTH_DIR [TILEC_DIFF]
#
# OUT/{liger,unsloth}/ get results.json, manifest.tsv, ops.tsv and tilec's PTX; OUT/*.log the
# runs' output; OUT/table.txt and OUT/table.md the combined table.  TILEC must run there: with
# its shared libraries on LD_LIBRARY_PATH when they were carried over.
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 OUT TILEC LIGER_DIR UNSLOTH_DIR [TILEC_DIFF]" >&2
  exit 2
fi
OUT=$1 TILEC=$2 LIGER=$3 UNSLOTH=$4
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
extra=()
[ $# -ge 5 ] && extra=(--tilec-diff "$5")
"$TILEC" --version > /dev/null || { echo "tilec does not run: $TILEC" >&2; exit 2; }

start=$(date +%s)
timeout 280 python3 "$HERE/run_liger.py" "$LIGER" --tilec "$TILEC" --out "$OUT/liger" "${extra[@]}" \
  > "$OUT/liger.log" 2>&1 &
liger=$!
timeout 280 python3 "$HERE/run_unsloth.py" "$UNSLOTH" --tilec "$TILEC" --out "$OUT/unsloth" "${extra[@]}" \
  > "$OUT/unsloth.log" 2>&1 &
unsloth=$!
wait $liger; echo "liger: exit $? ($(grep -c '^op ' "$OUT/liger.log") ops)"
wait $unsloth; echo "unsloth: exit $? ($(grep -c '^op ' "$OUT/unsloth.log") ops)"
echo "wall: $(( $(date +%s) - start )) s"
python3 "$HERE/table.py" "$OUT/liger" "$OUT/unsloth" > "$OUT/table.txt"
python3 "$HERE/table.py" "$OUT/liger" "$OUT/unsloth" --markdown > "$OUT/table.md"
sed -n '/^specialisations:/,$p' "$OUT/table.txt"
