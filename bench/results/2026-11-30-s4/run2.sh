# Session 4, second H200 call, after fixing device addresses (64-bit address arithmetic in the shaders;
# single-pass not offered through them) and the GL compile-error test: the same checks as run.sh again.
. bench/scripts/h200_env.sh > /dev/null
B=.h200/s6
start=$SECONDS
$B/gpuscan_gpu_tests --gtest_filter='DeviceAddress*:Window*:Indirect*:Compact*:Reduce*' > $OUT/gpu_tests2.log 2>&1
echo "gpu tests rc=$? $((SECONDS-start)) s"; tail -n 3 $OUT/gpu_tests2.log; grep -E "^\[  FAILED" $OUT/gpu_tests2.log | head
$B/gpuscan_gl_tests > $OUT/gl_tests2.log 2>&1
echo "gl tests rc=$? $((SECONDS-start)) s"; tail -n 3 $OUT/gl_tests2.log; grep -E "^\[  FAILED" $OUT/gl_tests2.log | head
$B/gpuscan_huge_bench --log2 31,33 --addressing device_address --algorithms auto,reduce-then-scan,multipass --runs 5 \
  > $OUT/huge_bda2.csv 2> $OUT/huge_bda2.err
echo "huge bda rc=$? $((SECONDS-start)) s"; cat $OUT/huge_bda2.csv; tail -n 3 $OUT/huge_bda2.err
