# Prepared in session 9 for the next session (NOT RUN: no device time left). What holds the single-pass
# loop at 0.72x the copy? Apply exp_loop.diff to a build (`git apply bench/results/2026-12-01-s9/exp_loop.diff`,
# Release, stripped into .h200/loop), carry .gl and .h200/loop. GPUSCAN_EXP_LOOP (wrong results, hence
# --no-verify): 0 = the merged kernel, 1 = no look-back, 2 = and no tile scan (a copy through the loop:
# counter, held tile, barriers of the take), 3 = as 2 with tile = workgroup id (the copy with the scan
# kernel's registers), 4 = the merged kernel with the next tile's loads in flight during the held tile's
# look-back and its scan after the held tile's store (session 6's "order 1": correct results; its slow
# verdict then, 2.2-3.5 ms at 2^28, is in the range of the clock's slow batches). Registers of each from
# GPUSCAN_PIPELINE_STATS=1. Runs with the bench's 2 s warm-up (default since session 9).
. bench/scripts/h200_env.sh > /dev/null
GPUSCAN_EXP_LOOP=4 .h200/loop/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32,f32 --kinds exclusive,inclusive \
  --algorithms single-pass --runs 5 --csv /tmp/verify4.csv 2> $OUT/verify4.log; echo "mode 4 verified: $(grep -ci mismatch $OUT/verify4.log) mismatches"
for m in 0 1 2 3 4; do
  GPUSCAN_PIPELINE_STATS=1 GPUSCAN_EXP_LOOP=$m .h200/loop/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types u32 --kinds exclusive \
    --algorithms single-pass --vectors 4,8 --tiles-per-workgroup 1,4 --copy-workgroup-sizes 256 --runs 30 --no-verify \
    --csv /tmp/m$m.csv > /tmp/m$m.out 2> /tmp/m$m.log
  echo "mode $m: $(grep -v '^#' /tmp/m$m.csv | grep -v '^impl' | cut -d, -f2,5,6 | tr '\n' ' ')"
  grep -iE "register" /tmp/m$m.log | sort | uniq -c | head -8
done
cat /tmp/m[0-4].csv > $OUT/loop.csv; cat /tmp/m[0-4].log > $OUT/loop.log
