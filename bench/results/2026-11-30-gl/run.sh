set -uo pipefail
. bench/scripts/h200_env.sh > /dev/null
out=$OUT
start=$SECONDS
timeout 200 .h200/s4/gpuscan_gl_tests --gtest_brief=1 > $out/gl_tests.log 2>&1
echo "gl tests rc=$? $((SECONDS-start)) s"; grep -E "PASSED|FAILED|SKIPPED|tests from" $out/gl_tests.log | tail -6
.h200/s4/gpuscan_gl_bench --help > $out/gl_bench_help.txt 2>&1
timeout 200 .h200/s4/gpuscan_gl_bench --platform device --min-log2 16 --max-log2 28 --step 2 --types u32 --csv $out/gl.csv 2> $out/gl_bench_log.txt
echo "gl bench rc=$? $((SECONDS-start)) s"; tail -3 $out/gl_bench_log.txt
echo skip-vk; false && timeout 200 .h200/s4/gpuscan_bench --min-log2 16 --max-log2 28 --step 2 --types u32 --kinds exclusive \
   --algorithms reduce-then-scan,multipass-subgroup,multipass-blelloch,single-pass --csv $out/vk.csv 2> $out/vk_bench_log.txt
echo "vk bench rc=$? $((SECONDS-start)) s"
