# Session 10, fourth call: scan_subgroup as one inclusive subgroup scan plus two shuffles (EXP_SG_SHUFFLE,
# GPUSCAN_EXP_SG=1 in build .h200/sg) instead of an exclusive scan plus a reduction (=0: the default),
# alternating in one call, with register counts. Single-pass and reduce-then-scan.
. bench/scripts/h200_env.sh > /dev/null
for r in a b; do for b in 0 1; do
  GPUSCAN_PIPELINE_STATS=1 GPUSCAN_EXP_SG=$b .h200/sg/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --kinds exclusive \
    --algorithms single-pass --workgroup-sizes 256 --vectors 4,8 --copy-workgroup-sizes 256 --runs 30 \
    --csv /tmp/b$b$r.csv > /dev/null 2> /tmp/b$b$r.log
  echo "shuffle $b ($r): $(grep -v '^#' /tmp/b$b$r.csv | grep -v '^impl' | cut -d, -f2,5,6 | sed 's/single-pass-//' | tr '\n' ' ')"
  [ $r = a ] && grep -i "single_pass.*register" /tmp/b$b$r.log | sed 's/.*add //;s/Binary.*Stack Size=0 Local Memory Size=[0-9]*//' | sort -u
  grep -ci mismatch /tmp/b$b$r.log
done; done
for b in 0 1; do
  GPUSCAN_EXP_SG=$b .h200/sg/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types f32,u64 --kinds exclusive \
    --algorithms single-pass,reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --csv /tmp/t$b.csv > /dev/null 2> /tmp/t$b.log
  echo "types shuffle $b: $(grep -v '^#' /tmp/t$b.csv | grep -v '^impl' | cut -d, -f2,3,5,6 | tr '\n' ' ')"; grep -ci mismatch /tmp/t$b.log
done
cat /tmp/b*.csv /tmp/t*.csv > $OUT/sg.csv; cat /tmp/b*.log /tmp/t*.log > $OUT/sg.log
