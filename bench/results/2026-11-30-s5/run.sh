# Session 5 on one H200 (nvidia-h200): binaries built here in Release from an experiment branch (main after
# session 5's merges, plus GPUSCAN_EXP_ALLOW lifting the two single-pass refusals -- device addresses and
# unaligned offsets -- and GPUSCAN_EXP_NO_RECONV turning the reconvergence guarantee off in the tests),
# carried in .h200/s7. 1) does declaring subgroup-uniform control flow / maximal reconvergence cure the
# two single-pass failures seen on NVIDIA? (A/B); 2) the single-pass scan in place (and its late-fallback
# aid), segmented windows, reconvergence and the usual GPU subset; 3) single-pass timing after the
# in-place barrier, beside reduce-then-scan, the copy and CUB.
. bench/scripts/h200_env.sh
B=.h200/s7
$B/gpuscan info 2>&1 | grep -i "reconvergence\|device\|driver" | head -5
start=$SECONDS
EXP='ScanLayoutTest.ExpUnalignedSinglePass:WindowTest.ScansSpanningManyWindows/single_pass*'
for mode in on off; do
  if [ $mode = off ]; then export GPUSCAN_EXP_NO_RECONV=1; fi
  GPUSCAN_EXP_ALLOW=1 $B/gpuscan_gpu_tests --gtest_filter="$EXP" > $OUT/exp_$mode.log 2>&1
  echo "exp reconvergence=$mode rc=$? $((SECONDS-start)) s"; grep -E "^EXP|^\[  FAILED|PASSED" $OUT/exp_$mode.log | head -12
  unset GPUSCAN_EXP_NO_RECONV
done
$B/gpuscan_gpu_tests --gtest_filter='ScanLayoutTest.*:Segmented*:DeviceAddress*:Window*:Indirect*:Compact*:Reduce*:Ops*:Misuse*:Context*:Stress*' > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $((SECONDS-start)) s"; tail -n 3 $OUT/gpu_tests.log; grep -E "^\[  FAILED" $OUT/gpu_tests.log | head
for r in "" --no-reconvergence; do
  $B/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --algorithms single-pass,reduce-then-scan --runs 30 \
    --copy-workgroup-sizes 256 $r --csv $OUT/bench$r.csv 2> $OUT/bench$r.log
  echo "bench $r rc=$? $((SECONDS-start)) s"; grep -v "^#" $OUT/bench$r.csv | head -14; grep -i "MISMATCH\|reconv" $OUT/bench$r.log | head -3
done
.h200/cub_scan_bench --sizes 2^20,2^24,2^28 --types u32 --kinds exclusive --no-copy --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?"; cat $OUT/cub.csv | head -8
