# Prepared in session 11 (no device was lent for a fourth call); ran in session 12's first call
# (bench/results/2026-12-01-s12/run1.sh, first/run4). Apply exp_fold.diff
# (git apply bench/results/2026-12-01-s11/exp_fold.diff) to a Release build stripped into .h200/fold,
# the merged code's into .h200/base; carry .gl and .h200. It passed ScanTest/OpsTest/ScanLayoutTest/
# SinglePassFallback on lavapipe (width 256). Why not merged unmeasured: its spec-constant branch may
# change NVIDIA's K = 8 compile of the exclusive kernel too (session 10's fourth call: 80 -> 64
# registers, 0.74 -> 1.34 ms), so the exclusive rows below are part of the check.
# Session 11, fourth call: inclusive u32/i32 single-pass tiles with the prefix folded into the held values
# (TILE_FOLD_INCLUSIVE, common/tile.glsl: one register fewer per held vector; build .h200/fold) against the
# merged code (build .h200/base = 4db238a), alternating, with register counts. Timings --no-verify; the
# fold build's inclusive cases are CPU-checked at the end.
. bench/scripts/h200_env.sh > /dev/null
for r in a b; do for b in base fold; do
  s=""; [ $r = a ] && s=1
  GPUSCAN_PIPELINE_STATS=$s .h200/$b/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32,i32 --kinds inclusive,exclusive \
    --algorithms single-pass --vectors 4,8 --copy-workgroup-sizes 256 --runs 30 --no-verify \
    --csv $OUT/$b$r.csv > /dev/null 2> /tmp/$b$r.log
  echo "$b ($r): $(grep -v '^#' $OUT/$b$r.csv | grep -v '^impl' | cut -d, -f2,3,4,5,6 | sed 's/single-pass-w256-//' | tr '\n' ' ')"
  [ $r = a ] && grep -i "single_pass.*register" /tmp/$b$r.log | sed 's/.*add //;s/Binary.*Stack Size=0 Local Memory Size=[0-9]*//' | sort -u | head -12
done; done
.h200/fold/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32,i32 --kinds inclusive --operators add,max,xor --algorithms single-pass \
  --vectors 4,8 --runs 3 --warmup-ms 200 --copy-workgroup-sizes 256 --csv /tmp/verify.csv 2> $OUT/verify.log
echo "fold verified (u32/i32 inclusive add/max/xor, K 4 and 8, 2^20-2^28): mismatches $(grep -ci mismatch $OUT/verify.log)"
