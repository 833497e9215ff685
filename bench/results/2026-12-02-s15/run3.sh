# Session 15, third call: float single-pass scans with the block-ordered look-back
# (common/lookback_ordered.glsl: blocks of 32 tiles scanned by a fixed-tree subgroup scan, block prefixes
# folded in block order; every run gives the same bits) on NVIDIA. Builds: .h200/new = this session's
# code, .h200/final = 08ec609 (the unordered look-back). The second call timed a first ordered version
# (exp_serial_fold.diff: tile totals folded one at a time) and found it up to 2.4x slower. The GPU tests
# touching the single-pass scan (determinism with 100 runs), a CPU check of f32/f64 single-pass, then
# final and new alternating twice (single-pass u32/f32/f64, exclusive and inclusive, 2^20/2^24/2^28),
# and reduce-then-scan f32/f64 once.
. bench/scripts/h200_env.sh > /dev/null
. bench/scripts/show.sh
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
t0=$(date +%s)
GPUSCAN_DETERMINISM_RUNS=100 .h200/new/gpuscan_gpu_tests --gtest_filter='DeterminismTest.*:SinglePassFallback.*:OpsTest.*single_pass*:ScanTest.EveryTileShape/single_pass*:ScanLayoutTest.SinglePassInPlace:ScanLayoutTest.SinglePassDefaultsAboveLargeTileSize' > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
B="--min-log2 20 --max-log2 28 --step 4 --kinds exclusive,inclusive --copy-workgroup-sizes 256"
.h200/new/gpuscan_bench $B --types f32,f64 --algorithms single-pass --runs 3 --warmup-ms 100 --csv $OUT/verify.csv > /tmp/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch /tmp/verify.log) $(( $(date +%s) - t0 ))s"
T="$B --runs 30 --no-verify"
for r in 1 2; do
  for b in final new; do
    GPUSCAN_PIPELINE_STATS=1 .h200/$b/gpuscan_bench $T --types u32,f32,f64 --algorithms single-pass --csv $OUT/$b$r.csv 2> /tmp/$b.err
    echo "$b$r rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/$b$r.csv
    [ $r = 1 ] && grep "^gpuscan pipeline single_pass.f" /tmp/$b.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -8
  done
done
.h200/new/gpuscan_bench $T --types f32,f64 --algorithms reduce-then-scan --csv $OUT/rts.csv 2> /dev/null
echo "rts rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/rts.csv
