# Session 8, fourth call: shape sweep of the staged single-pass compaction (second call's kernel) on the
# H200: select-if / select-flagged at 1 % and 50 %, 2^24 and 2^28, W = 128 and 256 with K = 4 and 8, and
# W = 512 with K = 4 (its K = 8 stage exceeds 48 KiB), M = 2 and 4 (three-pass: third call); every case
# CPU-checked before timing; two rounds; CUB in the same call.
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2; do
  GPUSCAN_PIPELINE_STATS=$((round == 1)) .h200/s18/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
    --compact-algorithms single-pass --workgroup-sizes 128,256 --vectors 4,8 --tiles-per-workgroup 2,4 \
    --copy-workgroup-sizes 256 --runs 30 --csv $OUT/a$round.csv 2> $OUT/a$round.log
  echo "round $round a rc=$?"; grep -v "^#" $OUT/a$round.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-/sp-/;s/three-pass/3p/;s/select-//' | tr '\n' ' '; echo
  .h200/s18/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
    --compact-algorithms single-pass --workgroup-sizes 512 --vectors 4 --tiles-per-workgroup 2,4 \
    --copy-workgroup-sizes 256 --runs 30 --csv $OUT/b$round.csv 2> $OUT/b$round.log
  echo "round $round b rc=$?"; grep -v "^#" $OUT/b$round.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-/sp-/;s/three-pass/3p/;s/select-//' | tr '\n' ' '; echo
  grep -iE "mismatch|FAIL" $OUT/a$round.log $OUT/b$round.log | head -5
done
grep "^gpuscan pipeline compact_single" $OUT/a1.log | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head -20
.h200/cub2/cub_scan_bench --sizes 2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
