# Session 4 on one H200 (nvidia-h200): binaries built here in Release (build-rel, main after the merges of
# session 4) and carried in .h200/s6. 1) the GPU suite's device-address, window, indirect, compaction,
# reduce and type tests on NVIDIA's Vulkan driver; 2) the GL suite on NVIDIA's GL (reductions, 64-bit types,
# custom operators and segmented scans are new there; NVIDIA has subgroups, llvmpipe has not);
# 3) u32 exclusive sums of 2^31 and 2^33 elements through buffer device addresses, checked on the GPU;
# 4) the 8-byte types at their new default shape (K = 2) beside the copy.
. bench/scripts/h200_env.sh > /dev/null
B=.h200/s6
start=$SECONDS
$B/gpuscan_gpu_tests --gtest_filter='DeviceAddress*:Window*:Indirect*:Compact*:Reduce*:Ops*:Misuse*' > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $((SECONDS-start)) s"; tail -n 3 $OUT/gpu_tests.log; grep -E "^\[  FAILED" $OUT/gpu_tests.log | head
$B/gpuscan_gl_tests > $OUT/gl_tests.log 2>&1
echo "gl tests rc=$? $((SECONDS-start)) s"; tail -n 3 $OUT/gl_tests.log; grep -E "^\[  FAILED" $OUT/gl_tests.log | head
$B/gpuscan_huge_bench --log2 31,33 --addressing device_address --algorithms auto,reduce-then-scan,single-pass --runs 5 \
  > $OUT/huge_bda.csv 2> $OUT/huge_bda.err
echo "huge bda rc=$? $((SECONDS-start)) s"; cat $OUT/huge_bda.csv; tail -n 3 $OUT/huge_bda.err
$B/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types u64,f64 --algorithms reduce-then-scan --runs 20 \
  --copy-workgroup-sizes 256 --csv $OUT/wide_default.csv 2> $OUT/wide_default.log
echo "wide rc=$? $((SECONDS-start)) s"; grep -v "^#" $OUT/wide_default.csv | cut -d, -f2,3,5,6; grep MISMATCH $OUT/wide_default.log | head -3
