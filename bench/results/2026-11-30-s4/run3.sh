# Session 4, third H200 call: u64 and f64 scans at the library's default shape (gpuscan_bench --vectors 0,
# the default now: K = 2 for 8-byte types), each case checked against the CPU first, beside the copy.
. bench/scripts/h200_env.sh > /dev/null
B=.h200/s6b
$B/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types u64,f64,u32 --algorithms reduce-then-scan,single-pass \
  --runs 20 --copy-workgroup-sizes 256 --csv $OUT/wide_default.csv 2> $OUT/wide_default.log
echo "rc=$?"; grep -v "^#" $OUT/wide_default.csv | cut -d, -f2,3,5,6; grep -c MISMATCH $OUT/wide_default.log
