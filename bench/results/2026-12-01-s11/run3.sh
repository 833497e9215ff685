# Session 11, third call: the NVIDIA tests of the merged build (.h200/new) again, now with Debian's
# validation layers carried in .gl (the second call's run failed every test: no layer on the machine).
. bench/scripts/h200_env.sh > /dev/null
timeout 400 .h200/new/gpuscan_gpu_tests --gtest_filter='ScanTest.*:OpsTest.*:SinglePassFallback.*:DeterminismTest.*:StressTest.*:All/CompactSinglePassTest.*:ScanLayoutTest.*:WindowTest.*' \
  --gtest_brief=1 > $OUT/tests.log 2>&1; echo "vulkan tests rc=$?"; tail -4 $OUT/tests.log
