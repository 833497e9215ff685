# Session 12, the two short follow-ups to the fifth call on the same warm machine (outputs in fifth/):
# (a) CPU checks of u64/i64 reduce-then-scan at W = 64, K = 2; (b) W = 32 beside 64 and 256 for u64.
. bench/scripts/h200_env.sh > /dev/null
.h200/new/gpuscan_bench --min-log2 20 --max-log2 24 --step 4 --types u64,i64 --kinds exclusive,inclusive --operators add,max \
  --algorithms reduce-then-scan --workgroup-sizes 64 --vectors 2 --runs 3 --warmup-ms 200 --copy-workgroup-sizes 256 \
  --csv $OUT/verify64.csv 2> $OUT/verify64.log
echo "rc=$? mismatches=$(grep -ci mismatch $OUT/verify64.log) rows=$(grep -c reduce-then $OUT/verify64.csv)"
.h200/new/gpuscan_bench --min-log2 26 --max-log2 28 --step 2 --types u64 --kinds exclusive --algorithms reduce-then-scan \
  --workgroup-sizes 32,64,256 --vectors 2 --runs 30 --no-verify --copy-workgroup-sizes 256 --csv $OUT/w32.csv 2> $OUT/w32.log
echo "rc=$?"; grep -v '^#' $OUT/w32.csv | cut -d, -f2,5,6 | tr '\n' ' '
