# Session 6, fifth call (final code: the compaction back on its one-tile kernel, the scan's tiles-per-workgroup
# test at W = 32 and 64): the single-pass, compaction, stress (1000 scans), window, 64-bit, indirect and
# layout GPU tests on NVIDIA; then the default single-pass scan once more at 2^22-2^26.
. bench/scripts/h200_env.sh > /dev/null
GPUSCAN_STRESS_COUNT=1000 .h200/s9/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:*ompact*:StressTest.*:WindowTest.*:Ops64*:Indirect*:ScanLayout*:ContextTest.*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran" $OUT/tests.log | head -12
.h200/s9/gpuscan_bench --min-log2 22 --max-log2 26 --step 2 --types u32 --algorithms single-pass,reduce-then-scan \
  --runs 30 --copy-workgroup-sizes 256 --csv $OUT/defaults.csv 2> $OUT/defaults.log
echo "bench rc=$?"; grep -v "^#" $OUT/defaults.csv | grep -v "^impl" | cut -d, -f2,5,6 | tr '\n' ' '; echo
