. bench/scripts/h200_env.sh > /dev/null
for v in base nolb; do
  EXP_TIME_ANYWAY=1 .h200/s2/bench_$v --min-log2 20 --max-log2 28 --step 2 --algorithms single-pass,reduce-then-scan --types u32 --kinds exclusive \
    --workgroup-sizes 256,1024 --vectors 4 --copy-workgroup-sizes 512 --copy-vectors 4 --runs 20 --csv $OUT/lb_$v.csv 2>/dev/null
done
for v in base nolb; do echo "== $v"; grep -v "^#" $OUT/lb_$v.csv | awk -F, '{printf "%s %s %s\n", $2, $5, $6}'; done
