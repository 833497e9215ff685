# Session 7, fourth call: timing-only experiment builds (wrong results, --no-verify): e1 = the fallback
# computes no total (exp_e1_no_fallback_scan.diff), e2 = no look-back at all (exp_e2_no_lookback.diff);
# register counts and 2^24-2^28 u32 times beside the main build (s10).
. bench/scripts/h200_env.sh > /dev/null
for b in e1 e2 s10; do
GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32 \
  --algorithms single-pass --workgroup-sizes 256,512 --vectors 2,4,8 --tiles-per-workgroup 1,4 \
  --runs 20 --copy-workgroup-sizes 256 --no-verify --csv $OUT/$b.csv 2> $OUT/$b.log
echo "$b rc=$?"
grep "gpuscan pipeline single" $OUT/$b.log | sed 's/gpuscan pipeline //' | cut -d' ' -f2,4-5 | sed 's/,1,64,0,0,0,0,0,/ /;s/,0,0,/ /' | tr '\n' ' '; echo
grep -v "^#" $OUT/$b.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/' | tr '\n' ' '; echo
done
