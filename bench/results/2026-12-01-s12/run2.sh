# Session 12, second call: small workgroups. Every shape sweep so far (sessions 1, 7, 8) ran W = 128-1024;
# W = 32 and 64 were only tested for correctness. With one or two subgroups per workgroup the tile
# loop's barriers couple fewer warps, and the SM holds more, smaller workgroups. Merged code (.h200/base
# = 4db238a, whose kernels are HEAD's), register counts printed, --no-verify (CPU checks below).
. bench/scripts/h200_env.sh > /dev/null
B=.h200/base/gpuscan_bench
C="--runs 30 --copy-workgroup-sizes 256 --no-verify"
GPUSCAN_PIPELINE_STATS=1 $B --min-log2 24 --max-log2 28 --step 4 --types u32 --kinds exclusive,inclusive \
  --algorithms single-pass --workgroup-sizes 32,64,128,256 --vectors 4,8 --tiles-per-workgroup 1,4 $C \
  --csv $OUT/scan.csv 2> $OUT/scan.log
echo "scan rc=$?"
grep "gpuscan pipeline single" $OUT/scan.log | sed 's/gpuscan pipeline //;s/Binary.*//' | sort -u | head -40
grep -v "^#" $OUT/scan.csv | grep -v "^impl" | cut -d, -f2,3,4,5,6 | sed 's/single-pass-/sp-/' | tr '\n' ' '; echo
GPUSCAN_PIPELINE_STATS=1 $B --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
  --compact-algorithms single-pass --workgroup-sizes 32,64,128,256 --vectors 4,8 $C --csv $OUT/compact.csv 2> $OUT/compact.log
echo "compact rc=$?"
grep "gpuscan pipeline compact" $OUT/compact.log | sed 's/gpuscan pipeline //;s/Binary.*//' | sort -u | head -40
grep -v "^#" $OUT/compact.csv | grep -v "^impl" | cut -d, -f2,3,4,5,6 | sed 's/single-pass/sp/;s/select-//' | tr '\n' ' '; echo
