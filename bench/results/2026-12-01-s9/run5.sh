# Session 9, fifth call: build .h200/s23 (the debug aid now leaves tile 0's 8-byte state half written;
# compaction stage helper shared; bench warm-up 2 s by default). The fallback and compaction tests on
# NVIDIA; then select-flagged (values loaded beside flags since session 8) at K = 4 (default) and K = 8.
. bench/scripts/h200_env.sh > /dev/null
.h200/s23/gpuscan_gpu_tests --gtest_filter='SinglePassFallback.*:*Compact*:ScanLayoutTest.SinglePassWithAHugeSpinLimit' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|FAILED" $OUT/tests.log | head -6
.h200/s23/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-flagged,select-if --densities 1,50 --compact-algorithms single-pass \
  --vectors 0,8 --copy-workgroup-sizes 256 --runs 30 --csv $OUT/k8.csv 2> $OUT/k8.log
echo "bench rc=$?"; grep -v "^#" $OUT/k8.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-w256/sp/;s/select-//' | tr '\n' ' '; echo
