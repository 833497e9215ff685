#!/usr/bin/env bash
# The H200 run behind bench/RESULTS.md: gpuscan's benchmark (every algorithm, the GLSL copy roofline in
# the same process), a tile-shape sweep, and CUB on the same sizes, then one table and the plots.
# Run from the repository root on the device machine with .gl and .h200 carried (bench/RESULTS.md).
set -uo pipefail
. bench/scripts/h200_env.sh
B=.h200/build/bench/gpuscan_bench
out=${OUT:-/tmp/out}
mkdir -p "$out"
$B --min-log2 10 --max-log2 28 --step 2 --types u32,f32 --kinds exclusive,inclusive \
   --copy-workgroup-sizes 256,512 --copy-vectors 1,4 --runs 30 --csv "$out/gpuscan.csv" 2> "$out/log.txt"
echo "gpuscan_bench rc=$?"
$B --min-log2 20 --max-log2 28 --step 4 --types u32 --kinds exclusive --algorithms single-pass,reduce-then-scan \
   --workgroup-sizes 256,512,1024 --vectors 2,4 --spins 64,1024 --copy-workgroup-sizes 256,512 --copy-vectors 1,4 \
   --runs 30 --csv "$out/sweep.csv" 2>> "$out/log.txt"
echo "sweep rc=$?"
.h200/cub_scan_bench --sizes 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30 --warmup 3000 --types u32,f32,u64 \
   --csv "$out/cub.csv" 2>> "$out/log.txt"
echo "cub rc=$?"
grep -E "MISMATCH|error" "$out/log.txt" | head -20
python3 bench/scripts/compare.py "$out/gpuscan.csv" "$out/cub.csv" --md "$out/results.md" > /dev/null
python3 bench/scripts/compare.py "$out/sweep.csv" "$out/cub.csv" --types u32 --kinds exclusive --md "$out/sweep.md" > /dev/null
python3 bench/scripts/plot.py "$out/gpuscan.csv" "$out/cub.csv" --type u32 --kind exclusive --out "$out/u32_exclusive.png"
python3 bench/scripts/plot.py "$out/gpuscan.csv" "$out/cub.csv" --type f32 --kind inclusive --out "$out/f32_inclusive.png"
cat "$out/results.md"
