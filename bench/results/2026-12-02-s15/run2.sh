# Session 15, second call: float single-pass scans with the ordered look-back (common/lookback.glsl,
# "Ordered": totals folded in tile order, so every run gives the same bits) on NVIDIA. Builds: .h200/new
# = this session's code, .h200/final = 08ec609 (the unordered look-back). The GPU tests of the scan
# (determinism with 100 runs), a CPU check of f32/f64 single-pass, then final and new alternating twice
# (single-pass u32/f32/f64, exclusive and inclusive, 2^20/2^24/2^28), and reduce-then-scan -- the
# deterministic default for floats until now -- once.
. bench/scripts/h200_env.sh > /dev/null
. bench/scripts/show.sh
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
t0=$(date +%s)
GPUSCAN_DETERMINISM_RUNS=100 .h200/new/gpuscan_gpu_tests \
  --gtest_filter='DeterminismTest.*:OpsTest.*:SinglePassFallback.*:ScanLayoutTest.*:ScanTest.*' > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
B="--min-log2 20 --max-log2 28 --step 4 --kinds exclusive,inclusive --copy-workgroup-sizes 256"
.h200/new/gpuscan_bench $B --types f32,f64 --algorithms single-pass --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > $OUT/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch $OUT/verify.log) $(( $(date +%s) - t0 ))s"
T="$B --runs 30 --no-verify"
for r in 1 2; do
  for b in final new; do
    GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench $T --types u32,f32,f64 --algorithms single-pass --csv $OUT/$b$r.csv 2> /tmp/$b.err
    echo "$b$r rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/$b$r.csv
    [ $r = 1 ] && grep "^gpuscan pipeline single_pass" /tmp/$b.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -12
  done
done
.h200/new/gpuscan_bench $T --types f32,f64 --algorithms reduce-then-scan --csv $OUT/rts.csv 2> /dev/null
echo "rts rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/rts.csv
