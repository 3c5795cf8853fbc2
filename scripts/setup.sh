#!/usr/bin/env bash
# Installs what tilec needs on a Debian bookworm machine (only what is missing), then configures
# and builds it in ./build. Safe to run again: it installs nothing twice and rebuilds incrementally.
#
#   scripts/setup.sh            # install + configure + build
#   BUILD_DIR=out scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
PACKAGES=(cmake ninja-build g++ python3 default-jre-headless
          llvm-19-dev llvm-19-tools antlr4 libantlr4-runtime-dev
          libcli11-dev catch2 nlohmann-json3-dev)

source scripts/install-missing.sh
install_missing setup "${PACKAGES[@]}"

if [ ! -e /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "setup: note: no CUDA toolkit found (/usr/local/cuda); the runtime, the GPU samples and the"
  echo "       ptxas checks of the emitted PTX are skipped. tilec itself does not need CUDA."
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
