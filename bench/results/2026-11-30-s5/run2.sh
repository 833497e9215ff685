# Session 5, second call: diagnosis of the single-pass scan's scalar (unaligned) path on NVIDIA, and the
# single-pass timing of session 4's build (gpuscan_bench_s4) beside this one, all in .h200/s8 in one process each.
. bench/scripts/h200_env.sh > /dev/null
for mode in on off; do
  if [ $mode = off ]; then export GPUSCAN_EXP_NO_RECONV=1; fi
  GPUSCAN_EXP_ALLOW=1 .h200/s8/gpuscan_gpu_tests --gtest_filter='ScanLayoutTest.ExpUnalignedSinglePass' 2>&1 | grep "^EXP" | cut -c1-330 | head -40
  unset GPUSCAN_EXP_NO_RECONV
done
for b in gpuscan_bench_s4 gpuscan_bench; do
  .h200/s8/$b --min-log2 24 --max-log2 28 --step 4 --types u32 --algorithms single-pass --workgroup-sizes 256,1024 --runs 30 \
    --copy-workgroup-sizes 256 --csv $OUT/sp_$b.csv 2> $OUT/sp_$b.log
  echo "bench $b rc=$?"; grep -v "^#" $OUT/sp_$b.csv | head -8
done
