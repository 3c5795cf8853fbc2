#!/usr/bin/env bash
# Writes the launcher headers tests/cmake/consumer needs where tilec cannot be built (the GPU
# machine has no LLVM): the same compilations tilec_add_kernels runs in consumer/CMakeLists.txt
# (keep the flags in step with it).
#
#   bash tests/cmake/make_prebuilt_headers.sh build/tilec OUT_DIR     # from the repository root
#
# OUT_DIR then holds vector_add.h, copy.h, vector_add_autotune.h and tiled_matmul.h; pass it as TILEC_PREBUILT_PTX_DIR (run_on_gpu.sh's
# PTX_DIR) and tests/cmake builds the consumer from them.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: bash tests/cmake/make_prebuilt_headers.sh TILEC OUT_DIR" >&2
  exit 2
fi
tilec=$1
out=$2
mkdir -p "$out"
"$tilec" samples/vector_add.tl --emit header --arch sm_90a --num-warps 4 \
  -k add_kernel -s "*fp32:16,*fp32:16,*fp32:16,i32,1024" -o "$out/vector_add.h"
"$tilec" samples/copy.tl --emit header --arch sm_90a -o "$out/copy.h"
"$tilec" samples/vector_add_autotune.tl --emit header --arch sm_90a -o "$out/vector_add_autotune.h"
"$tilec" samples/tiled_matmul.tl --emit header --arch sm_90a -k matmul_kernel_autotune \
  -s "*fp16:16,*fp16:16,*fp32:16,i32,i32,i32,i32:16,i32,i32:16,i32,i32:16,i32" \
  -o "$out/tiled_matmul.h"
for kernel in twofile threefile; do
  "$tilec" tests/cmake/consumer/multifile/$kernel.tl --emit header --arch sm_90a -o "$out/$kernel.h"
done
echo "wrote $out/vector_add.h $out/copy.h $out/vector_add_autotune.h $out/tiled_matmul.h" \
  "$out/twofile.h $out/threefile.h"
