# Session 10, third call: lanes owning K consecutive vectors (LANE_BLOCKED, GPUSCAN_EXP_BLOCKED=1 in build
# .h200/blk: one subgroup scan per lane instead of one per row; loads strided per instruction) against
# the row layout (=0), alternating in one call, with register counts. Single-pass and reduce-then-scan.
. bench/scripts/h200_env.sh > /dev/null
for r in a b; do for b in 0 1; do
  GPUSCAN_PIPELINE_STATS=1 GPUSCAN_EXP_BLOCKED=$b .h200/blk/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --kinds exclusive \
    --algorithms single-pass --workgroup-sizes 128,256 --vectors 4,8 --copy-workgroup-sizes 256 --runs 30 \
    --csv /tmp/b$b$r.csv > /dev/null 2> /tmp/b$b$r.log
  echo "blocked $b ($r): $(grep -v '^#' /tmp/b$b$r.csv | grep -v '^impl' | cut -d, -f2,5,6 | sed 's/single-pass-//' | tr '\n' ' ')"
  [ $r = a ] && grep -i "single_pass.*register" /tmp/b$b$r.log | sed 's/.*add //;s/Binary.*Stack Size=0 Local Memory Size=[0-9]*//' | sort -u
  grep -ci mismatch /tmp/b$b$r.log
done; done
for b in 0 1; do
  GPUSCAN_EXP_BLOCKED=$b .h200/blk/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types f32,u64 --kinds exclusive \
    --algorithms single-pass,reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --csv /tmp/t$b.csv > /dev/null 2> /tmp/t$b.log
  echo "types blocked $b: $(grep -v '^#' /tmp/t$b.csv | grep -v '^impl' | cut -d, -f2,3,5,6 | tr '\n' ' ')"; grep -ci mismatch /tmp/t$b.log
done
cat /tmp/b*.csv /tmp/t*.csv > $OUT/blocked.csv; cat /tmp/b*.log /tmp/t*.log > $OUT/blocked.log
