# Session 8, fifth call (final code: K = 8 by default for large single-pass selections by a predicate):
# compaction GPU tests on NVIDIA, then defaults (single-pass, three-pass) for select-if / select-flagged at
# 1 % and 50 %, 2^20, 2^24 and 2^28, every case CPU-checked before timing; CUB in the same call.
. bench/scripts/h200_env.sh > /dev/null
.h200/s19/gpuscan_gpu_tests --gtest_filter='*Compact*:ScanLayoutTest.*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
.h200/s19/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
  --compact-algorithms three-pass,single-pass --copy-workgroup-sizes 256 --runs 30 --csv $OUT/compact.csv 2> $OUT/compact.log
echo "compact rc=$?"; grep -v "^#" $OUT/compact.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/three-pass/3p/;s/select-//' | tr '\n' ' '; echo
grep -iE "mismatch|FAIL" $OUT/compact.log | head -5
.h200/cub2/cub_scan_bench --sizes 2^20,2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
