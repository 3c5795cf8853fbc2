#!/usr/bin/env bash
# Liger-Kernel's and unsloth's ops on the GPU, every Triton launch compiled by tilec for the same
# specialisation and compared with Triton's results (tilec_diff).
#
#   bash bench/corpus/run_on_gpu.sh OUT TILEC LIGER_DIR UNSLOTH_DIR [TILEC_DIFF [UNSLOTH_ZOO_DIR]]
#
# UNSLOTH_ZOO_DIR, an unsloth-zoo checkout, goes on tilec's -I for unsloth's kernels (harness.py --include-dir).
#
# OUT/{liger.0,liger.1,liger.2,unsloth}/ get results.json, manifest.tsv, ops.tsv and tilec's PTX; OUT/*.log the
# runs' output; OUT/table.txt and OUT/table.md the combined table.  TILEC must run there: that
# machine has no LLVM, so carry `scripts/package_tilec.sh pkg.tar.xz` and pass tilec/bin/tilec of it unpacked.
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 OUT TILEC LIGER_DIR UNSLOTH_DIR [TILEC_DIFF [UNSLOTH_ZOO_DIR]]" >&2
  exit 2
fi
OUT=$1 TILEC=$2 LIGER=$3 UNSLOTH=$4
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
extra=()
[ $# -ge 5 ] && extra=(--tilec-diff "$5")
zoo=()
[ $# -ge 6 ] && zoo=(--include-dir "$6")  # unsloth-zoo on tilec's -I
"$TILEC" --version > /dev/null || { echo "tilec does not run: $TILEC" >&2; exit 2; }

# Liger has most of the ops: three processes share them (each Triton and tilec compile is
# single-threaded), unsloth runs in a fourth.
start=$(date +%s)
pids=()
for k in 0 1 2; do
  timeout 280 python3 "$HERE/run_liger.py" "$LIGER" --tilec "$TILEC" --out "$OUT/liger.$k" --shard $k/3 \
    "${extra[@]}" > "$OUT/liger.$k.log" 2>&1 &
  pids+=($!)
done
timeout 280 python3 "$HERE/run_unsloth.py" "$UNSLOTH" --tilec "$TILEC" --out "$OUT/unsloth" "${extra[@]}" "${zoo[@]}" \
  > "$OUT/unsloth.log" 2>&1 &
pids+=($!)
for p in "${pids[@]}"; do wait "$p"; echo "exit $?"; done
echo "wall: $(( $(date +%s) - start )) s"
dirs=("$OUT"/liger.0 "$OUT"/liger.1 "$OUT"/liger.2 "$OUT"/unsloth)
python3 "$HERE/table.py" "${dirs[@]}" > "$OUT/table.txt"
python3 "$HERE/table.py" "${dirs[@]}" --markdown > "$OUT/table.md"
sed -n '/^specialisations:/,$p' "$OUT/table.txt"
