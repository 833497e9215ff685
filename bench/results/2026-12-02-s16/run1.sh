# Session 16, first call: the merged build on NVIDIA (session 15 timed its float kernels before they became
# two variants per type and op; no kernel changed since, `.h200/head` = this session's code). 1) the Vulkan
# GPU test suites of the scans under validation, DeterminismTest with 100 runs; 2) a CPU check of float
# single-pass with both look-backs; 3) where the deterministic (ordered) single-pass float scan beats
# reduce-then-scan, 2^20-2^26 in steps of 1 (automatic switches at 2^21 today: core::single_pass_auto_limit);
# 4) u32 exclusive single-pass and copy at 2^20/2^24/2^28, the headline, beside the float look-backs.
. bench/scripts/h200_env.sh > /dev/null
. bench/scripts/show.sh
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
t0=$(date +%s)
GPUSCAN_DETERMINISM_RUNS=100 .h200/head/gpuscan_gpu_tests --gtest_filter='ScanTest.*:OpsTest.*:SinglePassFallback.*:DeterminismTest.*:StressTest.*:ScanLayoutTest.*:ContextTest.*' > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED|SKIPPED \]" $OUT/tests.log | head -16
B="--min-log2 20 --max-log2 28 --step 4 --kinds exclusive,inclusive --copy-workgroup-sizes 256"
.h200/head/gpuscan_bench $B --types f32,f64 --algorithms single-pass,single-pass-ordered --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > /tmp/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch /tmp/verify.log) $(( $(date +%s) - t0 ))s"
.h200/head/gpuscan_bench --min-log2 20 --max-log2 26 --step 1 --types f32,f64 --kinds exclusive,inclusive \
  --algorithms single-pass-ordered,reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --no-verify --csv $OUT/det.csv 2> /dev/null
echo "det rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/det.csv
GPUSCAN_PIPELINE_STATS=1 .h200/head/gpuscan_bench $B --kinds exclusive --types u32,f32,f64 --algorithms single-pass,single-pass-ordered,reduce-then-scan \
  --runs 30 --no-verify --csv $OUT/head.csv 2> /tmp/head.err
echo "head rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/head.csv
grep "^gpuscan pipeline single_pass" /tmp/head.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -12
