#!/usr/bin/env bash
# Build the CUB scan reference benchmark.
#   usage: bench/cub/build.sh [OUTPUT]      (default OUTPUT: ./cub_scan_bench)
# Equivalent to, inside bench/cub/:
#   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_scan_bench cub_scan_bench.cu
# Needs nvcc from CUDA 12 or 13 (CUB ships with the toolkit); sm_90 = H100/H200.
# Set NVCC=/path/to/nvcc to pick a compiler; /usr/local/cuda/bin/nvcc is used
# when nvcc is not on PATH.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)/cub_scan_bench.cu"
NVCC="${NVCC:-nvcc}"
if ! command -v "$NVCC" >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  NVCC=/usr/local/cuda/bin/nvcc
fi
"$NVCC" -O3 -std=c++17 -arch=sm_90 -o "${1:-cub_scan_bench}" "$src"
