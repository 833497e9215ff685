#!/usr/bin/env bash
# Quick start, part 1: install, build, and run `gpuscan demo` on the default device (lavapipe without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target gpuscan_cli
./build/tools/gpuscan/gpuscan demo "$@"
