#!/usr/bin/env bash
# Packs a built tilec with the shared libraries it needs, for a machine that has neither LLVM nor
# ANTLR (the GPU machine, where the corpus drivers in bench/corpus run tilec on every launch):
#
#   bash scripts/package_tilec.sh OUT.tar.xz [TILEC]       (TILEC defaults to build/tilec)
#
# The archive holds tilec/bin/tilec, a wrapper that runs tilec/libexec/tilec with tilec/lib on
# LD_LIBRARY_PATH, and tilec/lib, every library `ldd` resolves except the C and C++ runtimes, which
# any Linux machine has (and a newer one is compatible). Unpack it anywhere and run tilec/bin/tilec.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 OUT.tar.xz [TILEC]" >&2
  exit 2
fi
out=$(realpath -m "$1")
tilec=$(realpath "${2:-build/tilec}")
[ -x "$tilec" ] || { echo "package_tilec: no tilec at $tilec (build it first)" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tilec/bin" "$stage/tilec/libexec" "$stage/tilec/lib"
cp "$tilec" "$stage/tilec/libexec/tilec"
# ldd prints "name => path (address)"; the runtimes left out are those of glibc and GCC.
ldd "$tilec" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/tilec/lib/"; done
cat > "$stage/tilec/bin/tilec" << 'EOF'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/../libexec/tilec" "$@"
EOF
chmod +x "$stage/tilec/bin/tilec"
echo "package_tilec: $(ls "$stage/tilec/lib" | wc -l) libraries; compressing (a minute or two)"
tar -C "$stage" -cf - tilec | xz -T2 -6 > "$out"
echo "package_tilec: $out ($(du -h "$out" | cut -f1)); run tilec/bin/tilec after unpacking"
