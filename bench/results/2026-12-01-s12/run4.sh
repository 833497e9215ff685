# Session 12, fourth call: the new single-pass default shapes (core::single_pass_shape: exclusive u32/i32
# K = 2 up to 2^18; inclusive u32/i32 W = 128, K = 8 above 2^23) built into .h200/new, against the merged
# code's defaults (.h200/base), alternating, defaults for W and K in both (the new bench's default W is
# gpuscan's, the old one's 256, which was gpuscan's), timings --no-verify; then CUB beside, the new
# build's CPU checks, and the single-pass tests on NVIDIA under validation.
. bench/scripts/h200_env.sh > /dev/null
C="--min-log2 16 --max-log2 27 --step 1 --types u32,i32 --kinds exclusive,inclusive --algorithms single-pass --runs 30 --copy-workgroup-sizes 256 --no-verify"
for r in a b; do for b in base new; do
  .h200/$b/gpuscan_bench $C --csv $OUT/$b$r.csv 2> /dev/null
  echo "$b ($r): $(grep -v '^#' $OUT/$b$r.csv | grep -v '^impl' | grep -v copy | cut -d,  -f3,4,5,6 | tr '\n' ' ')"
done; done
bash bench/cub/build.sh /tmp/cub_scan_bench > /dev/null 2>&1 || echo "CUB build failed"
/tmp/cub_scan_bench --sizes 2^16,2^18,2^20,2^22,2^23,2^24,2^25,2^26,2^27 --types u32 --runs 30 --warmup 3000 > $OUT/cub.csv 2> $OUT/cub.log
echo "cub: $(grep -v '^#' $OUT/cub.csv | tr '\n' ' ')"
.h200/new/gpuscan_bench --min-log2 16 --max-log2 26 --step 2 --types u32,i32 --kinds exclusive,inclusive --operators add,max \
  --algorithms single-pass --runs 3 --warmup-ms 200 --copy-workgroup-sizes 256 --csv /tmp/verify.csv 2> /tmp/verify.log
echo "new verified (u32/i32 excl/incl add/max 2^16-2^26, default shapes): rc=$? mismatches $(grep -ci mismatch /tmp/verify.log)"
timeout 200 .h200/new/gpuscan_gpu_tests --gtest_filter='ScanTest.*:OpsTest.*:SinglePassFallback.*:ScanLayoutTest.*:ContextTest.*:StressTest.*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|SKIPPED \]" $OUT/tests.log | head -12
