# Session 6, sixth call: 8-byte types (u64, f64; K = 2 by default) -- the single-pass scan with 1 and 4 tiles
# per workgroup beside reduce-then-scan and the copy, 2^20-2^28.
. bench/scripts/h200_env.sh > /dev/null
.h200/s9/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u64,f64 --algorithms single-pass,reduce-then-scan \
  --tiles-per-workgroup 1,4 --runs 30 --copy-workgroup-sizes 256 --csv $OUT/wide.csv 2> $OUT/wide.log
echo "bench rc=$?"; grep -v "^#" $OUT/wide.csv | grep -v "^impl" | cut -d, -f2,3,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan/rts/;s/-k0//' | tr '\n' ' '; echo
grep -c MISMATCH $OUT/wide.log
