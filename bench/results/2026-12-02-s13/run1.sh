# Session 13, first call. (1) The staged single-pass compaction with a whole-tile path whose loads are
# unguarded and all issued before the first ballot (.h200/new) against HEAD's (.h200/base, 7394dd3):
# CPU-checked once, then timed alternately in two rounds, select-if / select-flagged at 1 % and 50 %,
# 2^24 and 2^28, K = 4 and 8; registers printed. (2) The merged u64 reduce-then-scan default (W = 64
# above 2^23), timed as the build runs it (session 12 timed it with explicit W only). (3) CUB beside.
# (.h200/new here was the first version: every row's predicate went into an array of bvec4 before the
# ballots -- 88-164 registers, slower; not kept, its diff not saved. bench/RESULTS.md, session 13.)
. bench/scripts/h200_env.sh > /dev/null
B="--min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256"
.h200/new/gpuscan_bench $B --vectors 4,8 --runs 3 --warmup-ms 100 --csv $OUT/verify.csv 2> $OUT/verify.log
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log)"
for round in 1 2; do
  for b in base new; do
    GPUSCAN_PIPELINE_STATS=$((round == 1)) .h200/$b/gpuscan_bench $B --vectors 4,8 --runs 30 --no-verify --csv $OUT/$b$round.csv 2> $OUT/$b$round.log
    echo "$b round $round rc=$?"; grep -v "^#" $OUT/$b$round.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//' | tr '\n' ' '; echo
  done
done
for b in base new; do grep "^gpuscan pipeline compact_single" $OUT/${b}1.log | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -8; done
.h200/base/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u64 --kinds exclusive --algorithms reduce-then-scan --runs 30 \
  --no-verify --copy-workgroup-sizes 256 --csv $OUT/u64.csv 2> $OUT/u64.log
echo "u64 rc=$?"; grep -v '^#' $OUT/u64.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
bash bench/cub/build.sh /tmp/cub_scan_bench > $OUT/cub_build.log 2>&1
/tmp/cub_scan_bench --sizes 2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
.h200/new/gpuscan_gpu_tests --gtest_filter='*Compact*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
