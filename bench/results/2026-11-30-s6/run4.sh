# Session 6, fourth call: stream compaction with 1 and 4 tiles per workgroup in the single-pass plan
# (CompactConfig::tiles_per_workgroup) beside the three-pass plan and CUB DeviceSelect, u32, 2^20-2^28,
# 50 % and 1 % kept; then the compaction GPU tests on NVIDIA.
. bench/scripts/h200_env.sh > /dev/null
.h200/s9/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
  --compact-algorithms three-pass,single-pass --tiles-per-workgroup 1,4 --workgroup-sizes 256,512 --copy-workgroup-sizes 256 \
  --runs 30 --csv $OUT/compact.csv 2> $OUT/compact.log
echo "compact rc=$?"; grep -v "^#" $OUT/compact.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-/sp-/;s/three-pass/3p/;s/select-//;s/-k0//' | tr '\n' ' '; echo
.h200/cub_scan_bench --sizes 2^20,2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
.h200/s9/gpuscan_gpu_tests --gtest_filter='*ompact*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran" $OUT/tests.log | head -8
