# Session 14, second call: the single-pass compaction ranks a tile's rows with one subgroup scan of
# per-lane kept counts packed several rows to a word (v2: 16-bit fields, two rows a word; v3: 8-bit
# fields, four rows, valid for subgroups up to 63) instead of four ballots and eight bit counts per row.
# Both also carry the first call's K = 4 change (rows loaded row by row at K = 4). The compaction GPU
# tests on v2, a CPU check of v2 and v3, then HEAD (kept) / v2 / v3 timed side by side.
. bench/scripts/h200_env.sh > /dev/null
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
t0=$(date +%s)
.h200/v2/gpuscan_gpu_tests --gtest_filter='*Compact*:*Partition*:*Select*' > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
B="--min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256"
for b in v2 v3; do .h200/$b/gpuscan_bench $B --runs 3 --warmup-ms 100 --csv $OUT/verify_$b.csv > $OUT/verify_$b.log 2>&1
echo "verify $b rc=$? mismatches=$(grep -ci mismatch $OUT/verify_$b.log) $(( $(date +%s) - t0 ))s"; done
show() { grep -v "^#" $1 | grep -v "^impl" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//;s/,1048576,/,20,/;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo; }
for b in kept v2 v3; do
  GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench $B --runs 30 --no-verify --csv $OUT/$b.csv 2> $OUT/$b.err
  echo "$b rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/$b.csv
  grep "^gpuscan pipeline compact_" $OUT/$b.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -12
done
R="--min-log2 28 --max-log2 28 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256 --runs 30 --no-verify"
for b in v3 v2 kept; do .h200/$b/gpuscan_bench $R --csv $OUT/r2_$b.csv 2> /dev/null; echo "r2 $b $(( $(date +%s) - t0 ))s"; show $OUT/r2_$b.csv; done
