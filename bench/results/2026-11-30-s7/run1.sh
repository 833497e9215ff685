# Session 7, first call: the compiler's statistics per pipeline (GPUSCAN_PIPELINE_STATS) and a sweep of the
# single-pass tile shape (W x vectors per lane x tiles per workgroup) at 2^24-2^28 u32, beside reduce-then-scan.
. bench/scripts/h200_env.sh > /dev/null
GPUSCAN_PIPELINE_STATS=1 .h200/s10/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32 \
  --algorithms single-pass,reduce-then-scan --workgroup-sizes 256,512 --vectors 1,2,4 --tiles-per-workgroup 1,4 \
  --runs 20 --copy-workgroup-sizes 256 --no-verify --csv $OUT/sweep.csv 2> $OUT/sweep.log
echo "sweep rc=$?"
grep "gpuscan pipeline" $OUT/sweep.log | sed 's/gpuscan pipeline //' | cut -c1-400 | head -30
grep -v "^#" $OUT/sweep.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo
