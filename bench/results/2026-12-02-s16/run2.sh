# Session 16, second call: u64 single-pass scans in larger workgroups. u64 single-pass runs W = 256,
# K = 2 (tiles of 2048 elements = 16 KiB, half of u32's 32 KiB K = 8 tile) and is slower than
# reduce-then-scan from 2^24 (2^28 1.68 against 1.51 ms, session 12). K = 4 costs 96+ registers, but
# W = 512 and 1024 at K = 1 / 2 (never swept for 8-byte single-pass) give larger tiles at the same
# registers per invocation. No code change: bench flags on `.h200/head` (this session's build).
# Outcome (bench/RESULTS.md, session 16): both parts rejected -- every larger shape and the shared block
# prefixes were slower.
. bench/scripts/h200_env.sh > /dev/null
. bench/scripts/show.sh
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
t0=$(date +%s)
S="--min-log2 24 --max-log2 28 --step 2 --copy-workgroup-sizes 256 --runs 30 --no-verify --types u64"
GPUSCAN_PIPELINE_STATS=1 .h200/head/gpuscan_bench $S --kinds exclusive,inclusive --algorithms single-pass \
  --workgroup-sizes 256,512,1024 --vectors 1,2 --csv $OUT/sweep.csv 2> /tmp/sweep.err
echo "sweep rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/sweep.csv
grep "^gpuscan pipeline single_pass" /tmp/sweep.err | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -16
.h200/head/gpuscan_bench $S --kinds exclusive --algorithms single-pass --workgroup-sizes 512,1024 --vectors 2 \
  --tiles-per-workgroup 1,2,8 --csv $OUT/tiles.csv 2> /dev/null
echo "tiles rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/tiles.csv
.h200/head/gpuscan_bench $S --kinds exclusive,inclusive --algorithms reduce-then-scan --csv $OUT/rts.csv 2> /dev/null
echo "rts rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/rts.csv
.h200/head/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --copy-workgroup-sizes 256 --runs 3 --warmup-ms 100 --types u64 \
  --kinds exclusive,inclusive --algorithms single-pass --workgroup-sizes 512,1024 --vectors 1,2 --csv /tmp/verify.csv > /tmp/verify.log 2>&1
echo "verify rc=$? mismatches=$(grep -ci mismatch /tmp/verify.log) $(( $(date +%s) - t0 ))s"; grep -i mismatch /tmp/verify.log | head -5
# Part 2: the ordered look-back sharing the block prefixes it folds (exp_share.diff, build `.h200/share`):
# its tests on NVIDIA (determinism with 100 runs, every forced path), a CPU check, then head/share
# alternating twice on deterministic f32/f64 single-pass.
GPUSCAN_DETERMINISM_RUNS=100 .h200/share/gpuscan_gpu_tests --gtest_filter='DeterminismTest.*:SinglePassFallback.*:ScanLayoutTest.SinglePassInPlace' > $OUT/share_tests.log 2>&1
echo "share tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^\[  (PASSED|FAILED) +\]|FAILED" $OUT/share_tests.log | head -6
O="--min-log2 20 --max-log2 28 --step 4 --types f32,f64 --kinds exclusive,inclusive --algorithms single-pass-ordered --copy-workgroup-sizes 256"
.h200/share/gpuscan_bench $O --runs 3 --warmup-ms 100 > /tmp/share_verify.log 2>&1
echo "share verify rc=$? mismatches=$(grep -ci mismatch /tmp/share_verify.log) $(( $(date +%s) - t0 ))s"
for r in 1 2; do for b in head share; do
  .h200/$b/gpuscan_bench $O --runs 30 --no-verify --csv $OUT/$b$r.csv 2> /dev/null
  echo "$b$r rc=$? $(( $(date +%s) - t0 ))s"; show $OUT/$b$r.csv
done; done
