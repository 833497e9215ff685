# Session 9, second call: experiment exp_claim.diff -- the single-pass loop takes its next-but-one tile
# index during the held tile's look-back (one atomic round trip fewer per tile on the critical path);
# GPUSCAN_EXP_CLAIM=1 turns it on (spec constant 12), 0 is the merged loop. Tests with it on, then A/B.
. bench/scripts/h200_env.sh > /dev/null
GPUSCAN_EXP_CLAIM=1 .h200/s22/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:*Compact*:*Fallback*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|FAILED" $OUT/tests.log | head -6
for round in 1 2; do for c in 0 1; do
  GPUSCAN_EXP_CLAIM=$c .h200/s22/gpuscan_bench --min-log2 20 --max-log2 28 --step 2 --types u32 --kinds exclusive --algorithms single-pass \
    --copy-workgroup-sizes 256 --runs 30 --csv /tmp/s$round-$c.csv 2>> $OUT/log.txt
  echo "scan round $round claim $c:"; grep -v "^#" /tmp/s$round-$c.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-w256/sp/' | tr '\n' ' '; echo
  GPUSCAN_EXP_CLAIM=$c .h200/s22/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 50 --compact-algorithms single-pass \
    --copy-workgroup-sizes 256 --runs 30 --csv /tmp/c$round-$c.csv 2>> $OUT/log.txt
  echo "compact round $round claim $c:"; grep -v "^#" /tmp/c$round-$c.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//' | tr '\n' ' '; echo
done; done
grep -ciE "mismatch|FAIL" $OUT/log.txt; for f in /tmp/[sc][12]-[01].csv; do echo "== $f"; cat $f; done > $OUT/all.csv
