#!/usr/bin/env bash
# Build the CUB reference benchmarks: cub_scan_bench (scans, compaction, copy), cub_family_bench
# (segmented reduce, run-length encode, unique, histogram, copy) and cub_sort_bench (radix sort).
#   usage: bench/cub/build.sh [SCAN_OUTPUT [FAMILY_OUTPUT]]
#   default SCAN_OUTPUT ./cub_scan_bench; FAMILY_OUTPUT defaults to cub_family_bench beside it,
#   so `bench/cub/build.sh /tmp/cub_scan_bench` also writes /tmp/cub_family_bench; cub_sort_bench goes
#   beside them too.
# Equivalent to, inside bench/cub/:
#   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_scan_bench cub_scan_bench.cu
#   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_family_bench cub_family_bench.cu
#   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_sort_bench cub_sort_bench.cu
# One after the other (about 20 s each). Needs nvcc from CUDA 12 or 13 (CUB ships with the toolkit);
# sm_90 = H100/H200. Set NVCC=/path/to/nvcc to pick a compiler; /usr/local/cuda/bin/nvcc is used
# when nvcc is not on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
scan_out="${1:-cub_scan_bench}"
family_out="${2:-$(dirname "$scan_out")/cub_family_bench}"
NVCC="${NVCC:-nvcc}"
if ! command -v "$NVCC" >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  NVCC=/usr/local/cuda/bin/nvcc
fi
"$NVCC" -O3 -std=c++17 -arch=sm_90 -o "$scan_out" "$here/cub_scan_bench.cu"
"$NVCC" -O3 -std=c++17 -arch=sm_90 -o "$family_out" "$here/cub_family_bench.cu"
"$NVCC" -O3 -std=c++17 -arch=sm_90 -o "$(dirname "$scan_out")/cub_sort_bench" "$here/cub_sort_bench.cu"
