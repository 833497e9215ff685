# Session 3 on one H200 (device kind nvidia-h200), binaries built here in Release (build-rel) and carried
# in .h200/s3. 1) the GPU suite's window, indirect and scan tests on the NVIDIA driver; 2) the tile
# scans against the session-2 look-back run (lb_base.csv: same flags) after pass_begin() moved n, blocks
# and the grid width into private variables; 3) scans past one binding, checked on the GPU. The GL suite
# (windows and indirect counts on NVIDIA's GL) and 100-run determinism ride along.
. bench/scripts/h200_env.sh > /dev/null
B=.h200/s3
GPUSCAN_DETERMINISM_RUNS=100 $B/gpuscan_gpu_tests --gtest_filter='Window*:Indirect*:Scan*:Ops*:Misuse*:SinglePassFallback*:Determinism*' > $OUT/gpu_tests.log 2>&1
tail -n 3 $OUT/gpu_tests.log; grep -E "^\[  FAILED" $OUT/gpu_tests.log | head
$B/gpuscan_gl_tests > $OUT/gl_tests.log 2>&1
tail -n 3 $OUT/gl_tests.log; grep -E "^\[  FAILED" $OUT/gl_tests.log | head
$B/gpuscan_bench --min-log2 20 --max-log2 28 --step 2 --algorithms single-pass,reduce-then-scan --types u32 \
  --kinds exclusive --workgroup-sizes 256,1024 --vectors 4 --copy-workgroup-sizes 512 --copy-vectors 4 --runs 20 \
  --csv $OUT/tiles.csv 2>/dev/null
grep -v "^#" $OUT/tiles.csv | awk -F, '{printf "%s %s %s\n", $2, $5, $6}'
$B/gpuscan_huge_bench --log2 30,31,33 --runs 10 > $OUT/huge.csv 2> $OUT/huge.err
cat $OUT/huge.csv; tail -n 3 $OUT/huge.err
