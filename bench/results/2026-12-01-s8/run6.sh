# Session 8, sixth call: (a) the configurations that ran 2.4-3.4x slow in both rounds of the fourth call,
# with spin limits 64 and 1024 (does a longer wait before the fallback remove it?), and the defaults with
# both; (b) select-flagged loading every value with its flags (exp_load_all.diff, .h200/exp1) against
# loading values only where a flag is set (the merged kernel), defaults, 1 % and 50 %, 2^24 and 2^28.
. bench/scripts/h200_env.sh > /dev/null
B=.h200/s20/gpuscan_bench; C="--copy-workgroup-sizes 256 --runs 30 --compact-algorithms single-pass"
$B --min-log2 28 --max-log2 28 --ops select-if --densities 50 --workgroup-sizes 128 --vectors 4 --tiles-per-workgroup 2 --spins 64,1024 $C --csv $OUT/a1.csv 2> $OUT/a1.log
$B --min-log2 28 --max-log2 28 --ops select-flagged --densities 50 --workgroup-sizes 512 --vectors 4 --tiles-per-workgroup 2 --spins 64,1024 $C --csv $OUT/a2.csv 2> $OUT/a2.log
$B --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 50 --spins 64,1024 $C --csv $OUT/a3.csv 2> $OUT/a3.log
for f in a1 a2 a3; do echo "$f:"; grep -v "^#" $OUT/$f.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//' | tr '\n' ' '; echo; grep -ciE "mismatch|FAIL" $OUT/$f.log; done
for round in 1 2; do for b in s20 exp1; do
  .h200/$b/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-flagged --densities 1,50 $C --csv $OUT/b_${b}_$round.csv 2> $OUT/b_${b}_$round.log
  echo "b $b round $round:"; grep -v "^#" $OUT/b_${b}_$round.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/select-//' | tr '\n' ' '; echo; grep -ciE "mismatch|FAIL" $OUT/b_${b}_$round.log
done; done
