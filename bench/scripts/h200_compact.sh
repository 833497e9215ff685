#!/usr/bin/env bash
# The H200 compaction run (issue 4): gpuscan's select_if / select_flagged at 1, 50 and 99 % kept (three-pass,
# single-pass with a self-cleared temp, single-pass with a fill every run) beside cub::DeviceSelect::If /
# Flagged on the same sizes and densities, the GLSL copy roofline in the same process, a tile-shape sweep
# at 50 %, then the tables and plots. Expect several minutes (most of it host-side data and checks).
# Run from the repository root on the device machine with .gl and .h200 carried; .h200 is built here
# as bench/RESULTS.md says (the CUB binary must be rebuilt from this bench/cub/cub_scan_bench.cu: it
# gained --selects).
set -uo pipefail
. bench/scripts/h200_env.sh
B=.h200/build/bench/gpuscan_bench
out=${OUT:-/tmp/out}
mkdir -p "$out"
algs=three-pass,single-pass,single-pass-fill
$B --min-log2 10 --max-log2 28 --step 2 --ops select-if,select-flagged --densities 1,50,99 \
   --compact-algorithms "$algs" --copy-workgroup-sizes 256,512 --copy-vectors 4 --runs 30 \
   --csv "$out/compact.csv" --json "$out/compact.json" 2> "$out/compact_log.txt"
echo "gpuscan_bench rc=$? (${SECONDS} s)"
$B --min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 50 --compact-algorithms three-pass,single-pass \
   --workgroup-sizes 256,512,1024 --vectors 2,4,8 --copy-workgroup-sizes 512 --copy-vectors 4 --runs 30 \
   --csv "$out/compact_sweep.csv" 2>> "$out/compact_log.txt"
echo "sweep rc=$? (${SECONDS} s)"
.h200/cub_scan_bench --sizes 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28 --warmup 3000 --selects if,flagged \
   --densities 1,50,99 --select-only --csv "$out/cub_compact.csv" 2>> "$out/compact_log.txt"
echo "cub rc=$? (${SECONDS} s)"
grep -E "MISMATCH|error" "$out/compact_log.txt" | head -20
python3 bench/scripts/compare.py "$out/compact.csv" "$out/cub_compact.csv" --md "$out/compact.md" > /dev/null
python3 bench/scripts/compare.py "$out/compact_sweep.csv" "$out/cub_compact.csv" --md "$out/compact_sweep.md" > /dev/null
for k in select-if-50% select-flagged-50%; do
  python3 bench/scripts/plot.py "$out/compact.csv" "$out/cub_compact.csv" --type u32 --kind "$k" \
     --out "$out/u32_${k%\%}.png"
done
grep -A14 -E "## u32 select-(if|flagged)-50% compaction" "$out/compact.md"
