# Session 9, first call (session 8's seventh, which found no device time left, plus the liveness fix):
# the GPU tests of the single-pass scans and compactions, stress, windows, fallback and context suites on
# NVIDIA (the look-back fallback's liveness fix, 500c509, and select-flagged loading values beside flags);
# then spin limits 64 and 1024 for the default single-pass compaction (CPU-checked) and the default
# single-pass u32 exclusive scan (--no-verify: verified in session 8's first call), two rounds.
. bench/scripts/h200_env.sh > /dev/null
.h200/s21/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:WindowTest.*:*Compact*:*Fallback*:ContextTest.*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|FAILED" $OUT/tests.log | head -6
for round in 1 2; do
  .h200/s21/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass \
    --spins 64,1024 --copy-workgroup-sizes 256 --runs 30 --csv $OUT/c$round.csv 2> $OUT/c$round.log
  echo "compact round $round:"; grep -v "^#" $OUT/c$round.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//' | tr '\n' ' '; echo; grep -ciE "mismatch|FAIL" $OUT/c$round.log
  .h200/s21/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32 --kinds exclusive --algorithms single-pass --spins 64,1024 \
    --copy-workgroup-sizes 256 --runs 30 --no-verify --csv $OUT/s$round.csv 2> /dev/null
  echo "scan round $round:"; grep -v "^#" $OUT/s$round.csv | grep -v "^impl" | cut -d, -f2,5,6 | tr '\n' ' '; echo
done
