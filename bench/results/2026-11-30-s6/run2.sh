# Session 6, second call: tiles per workgroup (GPUSCAN_EXP_TILES) x the order of the next tile's work
# (GPUSCAN_EXP_ORDER: 0 = scan the next tile before looking back, 1 = next tile's loads in flight during
# the look-back), both with the next index taken one tile ahead; then the single-pass GPU tests with both.
. bench/scripts/h200_env.sh > /dev/null
for o in 0 1; do for m in 1 4 16; do
  GPUSCAN_EXP_ORDER=$o GPUSCAN_EXP_TILES=$m .h200/s9/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --algorithms single-pass \
    --workgroup-sizes 256,512,1024 --runs 30 --copy-workgroup-sizes 256 --csv $OUT/sp_o${o}_m$m.csv 2> $OUT/sp_o${o}_m$m.log
  echo "order=$o M=$m rc=$?"; grep -v "^#" $OUT/sp_o${o}_m$m.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-//;s/-k0//' | tr '\n' ' '; echo
done; done
for o in 0 1; do
  GPUSCAN_EXP_ORDER=$o GPUSCAN_EXP_TILES=8 .h200/s9/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:WindowTest.*' > $OUT/tests_o$o.log 2>&1
  echo "tests order=$o rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran" $OUT/tests_o$o.log | head -5
done
