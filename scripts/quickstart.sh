#!/usr/bin/env bash
# Quick start: set up and build tilec, compile samples/vector_add.tl to PTX, and run it: on the
# GPU when there is one, otherwise on tilec's CPU interpreter. Prints the result check.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh

echo "quickstart: compiling samples/vector_add.tl"
"$BUILD_DIR/tilec" samples/vector_add.tl -k add_kernel \
  -s "*fp32:16,*fp32:16,*fp32:16,i32,1024" -o "$BUILD_DIR/vector_add.ptx"
echo "quickstart: wrote $BUILD_DIR/vector_add.ptx and $BUILD_DIR/vector_add.json"

status=77
if [ -x "$BUILD_DIR/samples/vector_add" ]; then
  set +e
  "$BUILD_DIR/samples/vector_add" "$BUILD_DIR/vector_add.ptx" "$BUILD_DIR/vector_add.json"
  status=$?
  set -e
fi
if [ "$status" -eq 77 ]; then
  echo "quickstart: no GPU here; running the same kernel on the interpreter"
  "$BUILD_DIR/samples/vector_add_interp" samples/vector_add.tl
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
