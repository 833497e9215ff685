# Session 12, third call. The second call found inclusive u32 single-pass scans faster at W = 128, K = 8
# (96 registers, tiles of 4096) than at automatic's W = 256, K = 4 (62 registers, the same tiles):
# 2^24 0.0555 against 0.0580 ms, 2^28 0.805 against 0.858. Where does that shape beat reduce-then-scan,
# for which types, and does anything beat automatic's exclusive shapes at the small sizes?
# Merged code (.h200/base), --no-verify for timing; the new shape CPU-checked at the end.
. bench/scripts/h200_env.sh > /dev/null
B=.h200/base/gpuscan_bench
C="--runs 30 --copy-workgroup-sizes 256 --no-verify"
$B --min-log2 20 --max-log2 28 --step 1 --types u32,i32,f32 --kinds inclusive --algorithms single-pass \
  --workgroup-sizes 128,256 --vectors 4,8 $C --csv $OUT/incl_sp.csv 2> $OUT/incl_sp.log
echo "incl sp rc=$?"
$B --min-log2 20 --max-log2 28 --step 1 --types u32,i32,f32 --kinds inclusive --algorithms reduce-then-scan \
  $C --csv $OUT/incl_rts.csv 2> $OUT/incl_rts.log
echo "incl rts rc=$?"
for f in incl_sp incl_rts; do grep -v "^#" $OUT/$f.csv | grep -v "^impl" | cut -d, -f2,3,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo; done
GPUSCAN_PIPELINE_STATS=1 $B --min-log2 20 --max-log2 20 --types i32,f32 --kinds inclusive,exclusive --algorithms single-pass \
  --workgroup-sizes 128,256 --vectors 4,8 --runs 3 --no-verify --copy-workgroup-sizes 256 --csv /dev/null 2> $OUT/regs.log
grep "gpuscan pipeline single" $OUT/regs.log | sed 's/gpuscan pipeline //;s/Binary.*//' | sort -u
$B --min-log2 16 --max-log2 22 --step 2 --types u32 --kinds exclusive --algorithms single-pass \
  --workgroup-sizes 128,256,512 --vectors 2,4,8 $C --csv $OUT/excl_small.csv 2> $OUT/excl_small.log
echo "excl small rc=$?"
grep -v "^#" $OUT/excl_small.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-/sp-/' | tr '\n' ' '; echo
$B --min-log2 20 --max-log2 24 --step 4 --types u32,i32,f32 --kinds inclusive --operators add,max --algorithms single-pass \
  --workgroup-sizes 128 --vectors 8 --runs 3 --warmup-ms 200 --copy-workgroup-sizes 256 --csv $OUT/verify.csv 2> $OUT/verify.log
echo "verify rc=$? mismatches: $(grep -ci mismatch $OUT/verify.log)"
