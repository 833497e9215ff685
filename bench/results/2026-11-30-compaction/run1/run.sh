set -uo pipefail
. bench/scripts/h200_env.sh
B=.h200/s2/gpuscan_bench
out=$OUT
start=$SECONDS
$B --min-log2 10 --max-log2 28 --step 2 --ops select-if,select-flagged --densities 1,50,99 \
   --compact-algorithms three-pass,single-pass,single-pass-fill --copy-workgroup-sizes 256,512 --copy-vectors 4 --runs 30 \
   --csv "$out/compact.csv" --json "$out/compact.json" 2> "$out/compact_log.txt"
echo "gpuscan_bench rc=$? $((SECONDS-start)) s"
.h200/s2/cub_bench --sizes 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28 --selects if,flagged \
   --densities 1,50,99 --select-only --csv "$out/cub_compact.csv" 2>> "$out/compact_log.txt"
echo "cub rc=$? $((SECONDS-start)) s"
$B --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 50 --compact-algorithms single-pass,three-pass \
   --workgroup-sizes 256,512,1024 --vectors 2,4 --copy-workgroup-sizes 512 --copy-vectors 4 --runs 30 \
   --csv "$out/compact_sweep.csv" 2>> "$out/compact_log.txt"
echo "sweep rc=$? $((SECONDS-start)) s"
grep -E "MISMATCH|error|rror" "$out/compact_log.txt" | head -20
