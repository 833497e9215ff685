# Session 7, fifth call: the look-back's fallback computes the stuck tile's total one row at a time
# (tile_total, .h200/s13, tile_total.diff): register counts and a tile-shape sweep, u32 2^20-2^28 and
# u64 2^24-2^28; then the single-pass and compaction GPU tests.
. bench/scripts/h200_env.sh > /dev/null
b=s13
GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench --min-log2 20 --max-log2 28 --step 2 --types u32 \
  --algorithms single-pass --workgroup-sizes 128,256,512 --vectors 4,8 --tiles-per-workgroup 1,4 \
  --runs 20 --copy-workgroup-sizes 256 --no-verify --csv $OUT/u32.csv 2> $OUT/u32.log
echo "u32 rc=$?"
grep "gpuscan pipeline single" $OUT/u32.log | sed 's/gpuscan pipeline //' | cut -d' ' -f2,4-5 | sed 's/,1,64,0,0,0,0,0,/ /;s/,0,0,/ /;s/Register Count/r/' | tr '\n' ' '; echo
grep -v "^#" $OUT/u32.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/' | tr '\n' ' '; echo
GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u64 \
  --algorithms single-pass,reduce-then-scan --workgroup-sizes 256,512 --vectors 2,4 --tiles-per-workgroup 4 \
  --runs 20 --copy-workgroup-sizes 256 --no-verify --csv $OUT/u64.csv 2> $OUT/u64.log
echo "u64 rc=$?"
grep "gpuscan pipeline single" $OUT/u64.log | sed 's/gpuscan pipeline //' | cut -d' ' -f2,4-5 | sed 's/,1,64,0,0,0,0,0,/ /;s/,0,0,/ /;s/Register Count/r/' | tr '\n' ' '; echo
grep -v "^#" $OUT/u64.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo
GPUSCAN_STRESS_COUNT=300 .h200/$b/gpuscan_gpu_tests --gtest_filter='*single_pass*:*SinglePass*:StressTest.*:WindowTest.*:Ops64*:ScanLayout*:*Compact*:*Fallback*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran" $OUT/tests.log | head -8
