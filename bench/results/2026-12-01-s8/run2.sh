# Session 8, second call: the staged single-pass compaction (compact_stage.glsl, on the tile loop) on
# NVIDIA -- the compaction GPU tests first (incl. several tiles per workgroup), then select-if /
# select-flagged 50 % at 2^24 and 2^28: single-pass W = 256, K = 4 and 8, M = 1, 2, 4, 8 beside the
# three-pass plan, every case CPU-checked before timing; CUB DeviceSelect in the same call.
. bench/scripts/h200_env.sh > /dev/null
.h200/s16/gpuscan_gpu_tests --gtest_filter='*Compact*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
GPUSCAN_PIPELINE_STATS=1 .h200/s16/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 50 \
  --compact-algorithms three-pass,single-pass --workgroup-sizes 256 --vectors 4,8 --tiles-per-workgroup 1,2,4,8 \
  --copy-workgroup-sizes 256 --runs 30 --csv $OUT/compact.csv 2> $OUT/compact.log
echo "compact rc=$?"; grep -v "^#" $OUT/compact.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-/sp-/;s/three-pass/3p/;s/select-//' | tr '\n' ' '; echo
grep -iE "mismatch|FAIL" $OUT/compact.log | head -5; grep "^gpuscan pipeline compact" $OUT/compact.log | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head
.h200/cub2/cub_scan_bench --sizes 2^24,2^28 --selects if,flagged --densities 50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
