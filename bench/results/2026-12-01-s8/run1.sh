# Session 8, first call: verify the K = 8 default path (session 7's merged code) on the H200 -- the
# ScanLayout tests above 2^23 and a CPU-verified bench of single-pass defaults at 2^23-2^29 -- then the
# compaction baseline (gpuscan three-pass and single-pass beside CUB DeviceSelect, rebuilt with --selects).
. bench/scripts/h200_env.sh > /dev/null
(bench/cub/build.sh $OUT/cub_scan_bench > $OUT/cub_build.log 2>&1; echo "cub build rc=$?" >> $OUT/cub_build.log) &
.h200/s15/gpuscan_gpu_tests --gtest_filter='ScanLayoutTest.SinglePassDefaultsAboveLargeTileSize:ScanLayoutTest.SinglePassTilesPerWorkgroup:*Compact*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
.h200/s15/gpuscan_bench --min-log2 23 --max-log2 29 --step 1 --types u32,f32 --kinds exclusive \
  --algorithms single-pass --runs 10 --copy-workgroup-sizes 256 --csv $OUT/verify.csv 2> $OUT/verify.log
echo "verified bench rc=$?"; grep -ciE "mismatch|error" $OUT/verify.log; grep -v "^#" $OUT/verify.csv | grep -v "^impl" | cut -d, -f2,3,4,5,6 | tr '\n' ' '; echo
.h200/s15/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 50 \
  --compact-algorithms three-pass,single-pass --copy-workgroup-sizes 256 --runs 30 --csv $OUT/compact.csv 2> $OUT/compact.log
echo "compact rc=$?"; grep -v "^#" $OUT/compact.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
wait; cat $OUT/cub_build.log | tail -3
$OUT/cub_scan_bench --sizes 2^24,2^28 --selects if,flagged --densities 50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
