# Session 7, sixth call (build of the change: tile_total in the fallback, single-pass K = 8 for 4-byte types
# above 2^23 elements, automatic's single-pass range to 2^28 for them): defaults beside reduce-then-scan and
# CUB, u32 and f32, 2^20-2^29, two rounds; then the single-pass GPU tests with 300 stress scans.
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2; do
  .h200/s14/gpuscan_bench --min-log2 20 --max-log2 29 --step 1 --types u32,f32 --kinds exclusive,inclusive \
    --algorithms single-pass,reduce-then-scan --runs 30 --copy-workgroup-sizes 256 --no-verify --csv $OUT/r$round.csv 2> $OUT/r$round.log
  echo "round $round rc=$?"; grep -v "^#" $OUT/r$round.csv | grep -v "^impl" | cut -d, -f2,3,4,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/;s/exclusive/ex/;s/inclusive/in/' | tr '\n' ' '; echo
done
.h200/cub_scan_bench --sizes 2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28,2^29 --types u32,f32 --no-copy --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub.csv | cut -d, -f2,3,4,5,6 | sed 's/exclusive/ex/;s/inclusive/in/' | tr '\n' ' '; echo
GPUSCAN_STRESS_COUNT=300 .h200/s14/gpuscan_gpu_tests --gtest_filter='ContextTest.*:*single_pass*:*SinglePass*:StressTest.*:WindowTest.*:Ops64*:ScanLayout*:*Compact*:*Fallback*:*Indirect*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
