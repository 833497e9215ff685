# Prepared in session 11 (no device lent); ran in session 12's first call (s12/run1.sh, first/run5). What shape does CUB's scan run at on the H200, and
# what does it reach? CUB is at 0.96-0.99x of gpuscan's exclusive single-pass scan at 2^24-2^28 but
# beats its inclusive one; its kernel's registers, block size and achieved occupancy say what to copy.
# ncu reads counters only on the Firecracker runtime (KINDS.md); --clock-control none leaves the clocks
# alone (METHOD.md). Nsight Compute does not profile Vulkan, so gpuscan's kernels are not in it; their
# registers come from GPUSCAN_PIPELINE_STATS=1 (docs/bench.md).
. bench/scripts/h200_env.sh > /dev/null
bash bench/cub/build.sh /tmp/cub_scan_bench > /dev/null 2>&1 || echo "CUB build failed"
cuobjdump -res-usage /tmp/cub_scan_bench 2>&1 | grep -B1 -A1 -i "scan" | grep -iE "Function|REG" | head -40 > $OUT/cub_res_usage.txt
echo "CUB kernels' resource usage:"; head -20 $OUT/cub_res_usage.txt
for kind in exclusive inclusive; do
  timeout 150 ncu --clock-control none -k regex:DeviceScanKernel --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    /tmp/cub_scan_bench --sizes 2^28 --types u32 --kinds $kind --runs 3 --warmup 5 > $OUT/ncu_cub_$kind.txt 2>&1
  echo "ncu $kind rc=$?"; grep -E "Block Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Memory Throughput|Duration|Grid Size" $OUT/ncu_cub_$kind.txt | head -12
done
