# Session 11, second call: the merged code (shuffles in the single-pass kernel only, u32/i32; build
# .h200/new) — headline u32 figures with CUB in the same call, then the NVIDIA tests (Vulkan and GL).
# The first call ran out of time checking every 2^28 case on the CPU: here only one sweep is checked.
. bench/scripts/h200_env.sh > /dev/null
bash bench/cub/build.sh /tmp/cub_scan_bench > /dev/null 2>&1 || echo "CUB build failed"
B=.h200/new/gpuscan_bench
$B --min-log2 20 --max-log2 28 --step 2 --types u32 --kinds exclusive,inclusive --algorithms single-pass,reduce-then-scan \
  --copy-workgroup-sizes 256 --runs 30 --no-verify --csv $OUT/scan.csv 2> $OUT/scan.log
echo "scan: $(grep -v '^#' $OUT/scan.csv | grep -v '^impl' | cut -d, -f2,4,5,6 | sed 's/single-pass-w256-k0/sp/;s/reduce-then-scan-w256-k0/rts/' | tr '\n' ' ')"
$B --min-log2 24 --max-log2 28 --step 4 --types u32,i32 --kinds exclusive,inclusive --algorithms single-pass --operators add,max \
  --runs 5 --warmup-ms 200 --copy-workgroup-sizes 256 --csv /tmp/verify.csv 2> $OUT/verify.log
echo "verified (u32/i32 add/max, 2^24 and 2^28): mismatches $(grep -ci mismatch $OUT/verify.log)"
/tmp/cub_scan_bench --sizes 2^20,2^22,2^24,2^26,2^28 --types u32 --kinds exclusive,inclusive --warmup 3000 --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?: $(grep -v '^#' $OUT/cub.csv | cut -d, -f2,3,4,5,6 | tr '\n' ' ')"
timeout 240 .h200/new/gpuscan_gpu_tests --gtest_filter='ScanTest.*:OpsTest.*:SinglePassFallback.*:DeterminismTest.*:StressTest.*:All/CompactSinglePassTest.*' \
  --gtest_brief=1 > $OUT/tests.log 2>&1; echo "vulkan tests rc=$?"; tail -3 $OUT/tests.log
timeout 90 .h200/new/gpuscan_gl_tests --gtest_brief=1 > $OUT/gl_tests.log 2>&1; echo "gl tests rc=$?"; tail -3 $OUT/gl_tests.log
