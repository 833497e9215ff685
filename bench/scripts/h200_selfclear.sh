#!/usr/bin/env bash
# Second H200 run of 2026-11-30: the single-pass scan with its self-clearing look-back state
# (ScanArgs::temp_zeroed) beside the same scan with a clearing fill, reduce-then-scan and CUB.
set -uo pipefail
. bench/scripts/h200_env.sh
B=.h200/build/bench/gpuscan_bench
out=${OUT:-/tmp/out}
mkdir -p "$out"
$B --min-log2 10 --max-log2 28 --step 2 --types u32,f32 --kinds exclusive \
   --algorithms single-pass,single-pass-fill,reduce-then-scan --copy-workgroup-sizes 256,512 --copy-vectors 4 \
   --runs 30 --csv "$out/gpuscan2.csv" 2> "$out/log2.txt"
echo "gpuscan_bench rc=$?"
$B --min-log2 20 --max-log2 28 --step 2 --types u32 --kinds exclusive --algorithms single-pass \
   --workgroup-sizes 256,512,1024 --vectors 2,4 --copy-workgroup-sizes 512 --copy-vectors 4 \
   --runs 30 --csv "$out/sweep2.csv" 2>> "$out/log2.txt"
echo "sweep rc=$?"
.h200/cub_scan_bench --sizes 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28 --warmup 3000 --types u32,f32 --kinds exclusive \
   --no-copy --csv "$out/cub2.csv" 2>> "$out/log2.txt"
echo "cub rc=$?"
grep -E "MISMATCH|error" "$out/log2.txt" | head -20
python3 bench/scripts/compare.py "$out/gpuscan2.csv" "$out/cub2.csv" --md "$out/results2.md" > /dev/null
python3 bench/scripts/compare.py "$out/sweep2.csv" "$out/cub2.csv" --md "$out/sweep2.md" > /dev/null
python3 bench/scripts/plot.py "$out/gpuscan2.csv" "$out/cub2.csv" --type u32 --kind exclusive --out "$out/u32_exclusive2.png"
grep -A14 "## u32 exclusive" "$out/results2.md"
