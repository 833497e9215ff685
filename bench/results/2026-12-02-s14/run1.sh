# Session 14, first call: the single-pass compaction's stage_rank changed two ways (v1): at K = 4 (the
# default up to 2^23) a tile's rows are loaded row by row again (session 13's 2^20 regression), and with
# flags at K = 8 the flags of every row are loaded first, the tile ranked, and then the values of each
# row where one of its four is kept (not beside the flags: 107 registers at K = 8). HEAD (kept,
# b979a5d) and v1 timed side by side twice, CUB DeviceSelect in the same call; flags at K = 4 too.
. bench/scripts/h200_env.sh > /dev/null
(bash bench/cub/build.sh /tmp/cub_scan_bench > $OUT/cub_build.log 2>&1) &
.h200/v1/gpuscan_gpu_tests --gtest_filter='*Compact*:*Partition*:*Select*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
B="--min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256"
.h200/v1/gpuscan_bench $B --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > $OUT/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log)"
for r in 1 2; do for b in kept v1; do
  GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench $B --runs 30 --no-verify --csv $OUT/$b$r.csv 2> $OUT/$b.err
  echo "$b$r rc=$?"; grep -v "^#" $OUT/$b$r.csv | grep -v "^impl" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//;s/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
  [ $r = 1 ] && grep "^gpuscan pipeline compact_" $OUT/$b.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -12
done; done
K="--min-log2 24 --max-log2 28 --step 4 --ops select-flagged --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256 --runs 30 --no-verify --vectors 4"
for b in kept v1; do .h200/$b/gpuscan_bench $K --csv $OUT/k4_$b.csv 2> /dev/null
  echo "k4 $b"; grep -v "^#" $OUT/k4_$b.csv | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass-//;s/select-//;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo; done
wait
/tmp/cub_scan_bench --sizes 2^20,2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> /dev/null
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | sed 's/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
