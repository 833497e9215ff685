# Session 13, fourth call (short: the device time was nearly spent): the third call's three-pass
# select-flagged at 1 % was slower than HEAD's (its scatter loaded every value beside the flags); the
# final code (kept) loads a whole tile's flags first and the values of a row only where one of its four
# is kept, as HEAD did. CPU-checked, then HEAD (base) and kept timed side by side, 2^24 and 2^28.
. bench/scripts/h200_env.sh > /dev/null
B="--min-log2 24 --max-log2 28 --step 4 --ops select-flagged --densities 1,50 --compact-algorithms three-pass --copy-workgroup-sizes 256"
.h200/kept/gpuscan_bench $B --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > $OUT/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log)"
for b in base kept; do
  .h200/$b/gpuscan_bench $B --runs 30 --no-verify --csv $OUT/$b.csv 2> /dev/null
  echo "$b rc=$?"; grep -v "^#" $OUT/$b.csv | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/three-pass/3p/;s/select-//;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo
done
