# Session 6, third call (build of the merged change): the single-pass scan with 1 and 4 tiles per workgroup
# (ScanConfig::tiles_per_workgroup) at W = 256 and 512, reduce-then-scan and CUB, 2^20-2^28, two rounds;
# then the single-pass GPU tests on NVIDIA with the default (4) and 300 stress scans.
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2; do
  .h200/s9/gpuscan_bench --min-log2 20 --max-log2 28 --step 2 --types u32 --algorithms single-pass,reduce-then-scan \
    --workgroup-sizes 256,512 --tiles-per-workgroup 1,4 --runs 30 --copy-workgroup-sizes 256 --csv $OUT/r$round.csv 2> $OUT/r$round.log
  echo "round $round rc=$?"; grep -v "^#" $OUT/r$round.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/;s/-k4//' | tr '\n' ' '; echo
done
.h200/cub_scan_bench --sizes 2^20,2^22,2^24,2^26,2^28 --types u32 --kinds exclusive --no-copy --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub.csv | cut -d, -f2,5,6 | tr '\n' ' '; echo
GPUSCAN_STRESS_COUNT=300 .h200/s9/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:WindowTest.*:Ops64*:Indirect*:ScanLayout*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran" $OUT/tests.log | head -8
