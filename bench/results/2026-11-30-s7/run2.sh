# Session 7, second call: experiment build (.h200/s11, bench/results/2026-11-30-s7/exp_shared_hold.diff): the
# single-pass scan holds its scanned tile in shared memory instead of registers. Same sweep as the first call
# plus K = 8 at W = 256; then the first call's register-holding build again in the same process lifetime.
. bench/scripts/h200_env.sh > /dev/null
for b in s11 s10; do
GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32 \
  --algorithms single-pass,reduce-then-scan --workgroup-sizes 256,512 --vectors 2,4 --tiles-per-workgroup 1,4 \
  --runs 20 --copy-workgroup-sizes 256 --no-verify --csv $OUT/$b.csv 2> $OUT/$b.log
echo "$b rc=$?"
grep "gpuscan pipeline single" $OUT/$b.log | sed 's/gpuscan pipeline //' | cut -d' ' -f2,4-5,9 | tr '\n' ' '; echo
grep -v "^#" $OUT/$b.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo
done
GPUSCAN_PIPELINE_STATS=1 .h200/s11/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32 \
  --algorithms single-pass --workgroup-sizes 256 --vectors 8 --tiles-per-workgroup 1,2,4,8 \
  --runs 20 --copy-workgroup-sizes 256 --csv $OUT/k8.csv 2> $OUT/k8.log
echo "k8 rc=$?"
grep "gpuscan pipeline single" $OUT/k8.log | sed 's/gpuscan pipeline //' | cut -d' ' -f2,4-5,9 | tr '\n' ' '; echo
grep -v "^#" $OUT/k8.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo
