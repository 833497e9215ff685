# Session 6, first call: the single-pass scan with several tiles per workgroup (TILES_PER_WORKGROUP,
# experiment hook GPUSCAN_EXP_TILES) against one tile per workgroup, reduce-then-scan, the copy and CUB.
. bench/scripts/h200_env.sh > /dev/null
for m in 1 2 4 8 32; do
  GPUSCAN_EXP_TILES=$m .h200/s9/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --algorithms single-pass \
    --workgroup-sizes 256,512,1024 --runs 30 --copy-workgroup-sizes 256 --csv $OUT/sp_m$m.csv 2> $OUT/sp_m$m.log
  echo "M=$m rc=$?"; grep -v "^#" $OUT/sp_m$m.csv | grep -v "^impl" | cut -d, -f2,5,6 | tr '\n' ' '; echo
done
.h200/s9/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32 --algorithms reduce-then-scan \
    --workgroup-sizes 256,1024 --runs 30 --copy-workgroup-sizes 256 --csv $OUT/rts.csv 2> $OUT/rts.log
echo "rts rc=$?"; grep -v "^#" $OUT/rts.csv | grep -v "^impl" | cut -d, -f2,5,6 | tr '\n' ' '; echo
.h200/cub_scan_bench --sizes 2^20,2^24,2^28 --types u32 --kinds exclusive --no-copy --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub.csv | cut -d, -f2,5,6 | tr '\n' ' '
