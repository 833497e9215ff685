set -uo pipefail
. bench/scripts/h200_env.sh > /dev/null
out=$OUT
start=$SECONDS
GPUSCAN_STRESS_COUNT=300 timeout 300 .h200/s3/gpuscan_gpu_tests --gtest_brief=1 > $out/gpu_tests.log 2>&1
echo "gpu tests rc=$? $((SECONDS-start)) s"; tail -4 $out/gpu_tests.log
B=.h200/s3/gpuscan_bench
$B --min-log2 16 --max-log2 28 --step 2 --ops select-if,select-flagged --densities 1,50 \
   --compact-algorithms three-pass,single-pass --copy-workgroup-sizes 256,512 --copy-vectors 4 --runs 30 \
   --csv $out/compact.csv --json $out/compact.json 2> $out/compact_log.txt
echo "bench rc=$? $((SECONDS-start)) s"
.h200/s2/cub_bench --sizes 2^16,2^18,2^20,2^22,2^24,2^26,2^28 --selects if,flagged --densities 1,50 --select-only \
   --csv $out/cub_compact.csv 2>> $out/compact_log.txt
echo "cub rc=$? $((SECONDS-start)) s"
$B --min-log2 28 --max-log2 28 --ops select-if --densities 50 --compact-algorithms three-pass,single-pass \
   --workgroup-sizes 256,512,1024 --vectors 2,4,8 --copy-workgroup-sizes 512 --copy-vectors 4 --runs 20 \
   --csv $out/compact_sweep.csv 2>> $out/compact_log.txt
echo "sweep rc=$? $((SECONDS-start)) s"
grep -E "MISMATCH|rror" $out/compact_log.txt | head
