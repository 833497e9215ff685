# Session 10, second call: the single-pass scan holding its tile in shared memory (HOLD_IN_SHARED,
# GPUSCAN_EXP_HOLD=1 in build .h200/hold) against registers (=0), alternating in one call, with
# register counts; CUB beside. Then the single-pass tests on NVIDIA with the shared hold.
. bench/scripts/h200_env.sh > /dev/null
.h200/cub2/cub_scan_bench --sizes 2^20,2^24,2^28 --types u32,f32,u64 --kinds exclusive --warmup 3000 --csv /tmp/cub.csv > /dev/null 2>&1
echo "cub: $(grep -v '^#' /tmp/cub.csv | cut -d, -f1-6 | tr '\n' ' ')"
for r in a b; do for h in 0 1; do
  GPUSCAN_PIPELINE_STATS=1 GPUSCAN_EXP_HOLD=$h .h200/hold/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --kinds exclusive \
    --algorithms single-pass --workgroup-sizes 128,256 --vectors 4,8 --copy-workgroup-sizes 256 --runs 30 \
    --csv /tmp/h$h$r.csv > /dev/null 2> /tmp/h$h$r.log
  echo "hold $h ($r): $(grep -v '^#' /tmp/h$h$r.csv | grep -v '^impl' | cut -d, -f2,5,6 | sed 's/single-pass-//' | tr '\n' ' ')"
  [ $r = a ] && grep -i "single_pass.*register" /tmp/h$h$r.log | sed 's/.*add //;s/Binary.*Stack Size=0 Local Memory Size=[0-9]*//' | sort -u
done; done
for h in 0 1; do
  GPUSCAN_EXP_HOLD=$h .h200/hold/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types f32,u64 --kinds exclusive \
    --algorithms single-pass --copy-workgroup-sizes 256 --runs 30 --csv /tmp/t$h.csv > /dev/null 2> /tmp/t$h.log
  echo "types hold $h: $(grep -v '^#' /tmp/t$h.csv | grep -v '^impl' | cut -d, -f2,3,5,6 | sed 's/single-pass-//' | tr '\n' ' ')"
done
GPUSCAN_EXP_HOLD=1 timeout 200 .h200/hold/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:WindowTest.*' > /tmp/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|FAILED" /tmp/tests.log | head -8
cat /tmp/cub.csv /tmp/h*.csv /tmp/t*.csv > $OUT/hold.csv; cat /tmp/h*.log /tmp/t*.log > $OUT/hold.log; tail -50 /tmp/tests.log > $OUT/tests_tail.log
