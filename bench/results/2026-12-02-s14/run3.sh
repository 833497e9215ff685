# Session 14, third call: the code as committed (final: the single-pass compaction at K = 4 ranks row by
# row again; ballot_load_tile replaces ballot_tile_whole + ballot_load_rows, vector-load accessors) on
# NVIDIA: the compaction GPU tests, a CPU check (single- and three-pass), then HEAD before the session (kept, b979a5d) and final
# timed side by side (single-pass), CUB DeviceSelect in the same call.
. bench/scripts/h200_env.sh > /dev/null
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
(bash bench/cub/build.sh /tmp/cub_scan_bench > $OUT/cub_build.log 2>&1) &
t0=$(date +%s)
.h200/final/gpuscan_gpu_tests --gtest_filter='*Compact*:*Partition*:*Select*' > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
B="--min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass,three-pass --copy-workgroup-sizes 256"
.h200/final/gpuscan_bench $B --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > $OUT/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log) $(( $(date +%s) - t0 ))s"
show() { grep -v "^#" $1 | grep -v "^impl" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/three-pass/3p/;s/select-//;s/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo; }
T="${B/single-pass,three-pass/single-pass}"
for b in kept final; do
  GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench $T --runs 30 --no-verify --csv $OUT/$b.csv 2> $OUT/$b.err
  echo "$b rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/$b.csv
  grep "^gpuscan pipeline compact_" $OUT/$b.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -16
done
wait
/tmp/cub_scan_bench --sizes 2^20,2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> /dev/null
echo "cub rc=$? $(( $(date +%s) - t0 ))s"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | sed 's/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
