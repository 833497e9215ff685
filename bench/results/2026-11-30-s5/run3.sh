# Session 5, third call: after the in-place fence and barrier became conditional (IN_PLACE). 1) the
# single-pass timing of session 4's build (gpuscan_bench_s4) and this one, alternating twice, with
# reduce-then-scan, the copy and CUB at the headline sizes; 2) the in-place, window, layout, misuse and
# segmented GPU tests on NVIDIA. Binaries in .h200/s8 (experiment build: main + env-gated experiment hooks).
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2; do
  for b in gpuscan_bench_s4 gpuscan_bench; do
    .h200/s8/$b --min-log2 20 --max-log2 28 --step 4 --types u32 --algorithms single-pass,reduce-then-scan --workgroup-sizes 256,1024 \
      --runs 30 --copy-workgroup-sizes 256 --csv $OUT/sp_${b}_$round.csv 2> $OUT/sp_${b}_$round.log
    echo "bench $b round $round rc=$?"; grep -v "^#" $OUT/sp_${b}_$round.csv | grep -v "^impl" | cut -d, -f2,5,6
  done
done
.h200/cub_scan_bench --sizes 2^20,2^24,2^28 --types u32 --kinds exclusive --no-copy --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub.csv | cut -d, -f2,5,6
.h200/s8/gpuscan_gpu_tests --gtest_filter='ScanLayoutTest.*:Window*:Misuse*:Segmented*:Stress*:Context*' > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests ran" $OUT/gpu_tests.log | head -8
