# Session 13, third call: the merged change (every ballot-path compaction kernel loads a whole tile's
# rows before its first ballot: single-pass stage_rank, three-pass count and scatter, partition) on
# NVIDIA: the compaction GPU tests, a CPU-checked run of the defaults, then HEAD (base, 7394dd3) and the
# change (new) timed side by side -- select-if / select-flagged at 1 % and 50 %, single-pass and three-
# pass, 2^20 / 2^24 / 2^28 -- with CUB DeviceSelect in the same call; last, a W x K sweep of select-if.
# (Afterwards the three-pass scatter with flags was changed to load values only where kept: run4.sh.)
. bench/scripts/h200_env.sh > /dev/null
(bash bench/cub/build.sh /tmp/cub_scan_bench > $OUT/cub_build.log 2>&1) &
.h200/new/gpuscan_gpu_tests --gtest_filter='*Compact*:*Partition*:*Select*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
B="--min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass,three-pass --copy-workgroup-sizes 256"
.h200/new/gpuscan_bench $B --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > $OUT/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log)"
for b in base new; do
  GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench $B --runs 30 --no-verify --csv $OUT/$b.csv 2> $OUT/$b.err
  echo "$b rc=$?"; grep -v "^#" $OUT/$b.csv | grep -v "^impl" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/three-pass/3p/;s/select-//;s/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
  grep "^gpuscan pipeline compact_" $OUT/$b.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -12
done
wait
/tmp/cub_scan_bench --sizes 2^20,2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> /dev/null
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | sed 's/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
S="--min-log2 24 --max-log2 28 --step 4 --ops select-if --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256 --runs 30 --no-verify"
.h200/new/gpuscan_bench $S --workgroup-sizes 128 --vectors 8,16 --csv $OUT/sweep.csv 2> /dev/null
.h200/new/gpuscan_bench $S --workgroup-sizes 512 --vectors 4 --csv $OUT/sweep512.csv 2> /dev/null
echo "sweep"; cat $OUT/sweep.csv $OUT/sweep512.csv | grep -v "^#" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass-//;s/select-//;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
