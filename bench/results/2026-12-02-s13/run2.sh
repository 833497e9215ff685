# Session 13, second call. (1) e2: the whole-tile path of run1 without its array of predicates --
# every row's values (and flags) loaded first, each row's predicate evaluated beside its ballot; CPU-
# checked, then timed against HEAD (base) alternately in two rounds. (2) nolb: HEAD's compaction with
# the look-back left out (every tile takes 0 as its prefix: wrong output, not verified), to measure what
# the look-back costs. select-if / select-flagged at 1 % and 50 %, 2^24 and 2^28, K = 4 and 8.
. bench/scripts/h200_env.sh > /dev/null
B="--min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass --copy-workgroup-sizes 256 --vectors 4,8"
.h200/e2/gpuscan_bench $B --runs 3 --warmup-ms 100 --csv $OUT/verify.csv 2> $OUT/verify.log
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log)"
for round in 1 2; do
  for b in base e2 nolb; do
    GPUSCAN_PIPELINE_STATS=$((round == 1)) .h200/$b/gpuscan_bench $B --runs 30 --no-verify --csv $OUT/$b$round.csv 2> $OUT/$b$round.log
    echo "$b round $round rc=$?"; grep -v "^#" $OUT/$b$round.csv | grep -v "^impl" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass-w0-/k/;s/select-//;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
  done
done
for b in base e2 nolb; do grep "^gpuscan pipeline compact_single" $OUT/${b}1.log | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -8; done
