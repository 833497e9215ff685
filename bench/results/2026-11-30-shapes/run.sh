# Tile-shape sweep per element type (session 4): which W x vectors-per-lane each type wants on the H200.
# Run from the repository root on nvidia-h200 with .gl and .h200 carried: bash bench/results/2026-11-30-shapes/run.sh
set -uo pipefail
. bench/scripts/h200_env.sh > /dev/null
out=${OUT:-/tmp/shapes}; mkdir -p "$out"
B=.h200/s5/gpuscan_bench
start=$SECONDS
$B --min-log2 24 --max-log2 24 --types u64,f64,f32,u32 --algorithms reduce-then-scan,single-pass \
   --workgroup-sizes 256,512,1024 --vectors 1,2,4 --runs 20 --copy-workgroup-sizes 256,512 \
   --csv $out/sweep24.csv 2> $out/sweep24_log.txt
echo "sweep24 rc=$? $((SECONDS-start)) s"
$B --min-log2 28 --max-log2 28 --types u64,f64,u32 --algorithms reduce-then-scan,single-pass \
   --workgroup-sizes 256,512,1024 --vectors 1,2,4 --runs 20 --copy-workgroup-sizes 256,512 --no-verify \
   --csv $out/sweep28.csv 2> $out/sweep28_log.txt
echo "sweep28 rc=$? $((SECONDS-start)) s"
.h200/s2/cub_bench --sizes 2^24,2^28 --types u32,u64 --kinds exclusive --csv $out/cub.csv 2> $out/cub_log.txt
echo "cub rc=$? $((SECONDS-start)) s"
grep -E "MISMATCH|rror" $out/*_log.txt | head
