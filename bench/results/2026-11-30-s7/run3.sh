# Session 7, third call: the held tile's first look-back window read beside the next tile's loads
# (.h200/s12, exp_prefetch_window.diff) against the session-6 loop (.h200/s10), alternating, two rounds;
# then the single-pass GPU tests of s12.
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2; do for b in s12 s10; do
GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench --min-log2 20 --max-log2 28 --step 2 --types u32 \
  --algorithms single-pass --workgroup-sizes 256,512 --vectors 4 --tiles-per-workgroup 1,4 \
  --runs 30 --copy-workgroup-sizes 256 --no-verify --csv $OUT/$b-$round.csv 2> $OUT/$b-$round.log
echo "$b round $round rc=$?"
grep "gpuscan pipeline single" $OUT/$b-$round.log | sed 's/gpuscan pipeline //' | cut -d' ' -f2,4-5 | tr '\n' ' '; echo
grep -v "^#" $OUT/$b-$round.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/;s/-k4//' | tr '\n' ' '; echo
done; done
GPUSCAN_STRESS_COUNT=300 .h200/s12/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:WindowTest.*:Ops64*:ScanLayout*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran" $OUT/tests.log | head -8
