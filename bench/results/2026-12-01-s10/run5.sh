# Session 10, fifth call: scan_subgroup as one inclusive subgroup scan plus two shuffles, compiled in
# unconditionally (build .h200/sgu, exp_sgu.diff) against HEAD (build .h200/base), alternating in one call,
# with register counts (the fourth call's spec-constant switch changed the K = 8 compile of both modes).
. bench/scripts/h200_env.sh > /dev/null
for r in a b; do for b in base sgu; do
  GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --kinds exclusive \
    --algorithms single-pass --workgroup-sizes 256 --vectors 4,8 --copy-workgroup-sizes 256 --runs 30 \
    --csv /tmp/$b$r.csv > /dev/null 2> /tmp/$b$r.log
  echo "$b ($r): $(grep -v '^#' /tmp/$b$r.csv | grep -v '^impl' | cut -d, -f2,5,6 | sed 's/single-pass-//' | tr '\n' ' ')"
  [ $r = a ] && grep -i "single_pass.*register" /tmp/$b$r.log | sed 's/.*add //;s/Binary.*Stack Size=0 Local Memory Size=[0-9]*//' | sort -u
  grep -ci mismatch /tmp/$b$r.log
done; done
for b in base sgu; do
  .h200/$b/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types f32,u64 --kinds exclusive \
    --algorithms single-pass,reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --csv /tmp/t$b.csv > /dev/null 2> /tmp/t$b.log
  echo "types $b: $(grep -v '^#' /tmp/t$b.csv | grep -v '^impl' | cut -d, -f2,3,5,6 | tr '\n' ' ')"; grep -ci mismatch /tmp/t$b.log
done
cat /tmp/base*.csv /tmp/sgu*.csv /tmp/t*.csv > $OUT/sgu.csv; cat /tmp/base*.log /tmp/sgu*.log /tmp/t*.log > $OUT/sgu.log
