# Session 9, third call: what the slow batches are. The merged build (.h200/s21), default select-if and
# select-flagged (50 %) at 2^28 and the default u32 exclusive scan at 2^28, while nvidia-smi logs the
# clocks every 100 ms: A without verification (batches back to back), B with the CPU check before each
# batch (seconds of GPU idle before it), C as B with 2 s of warm-up work instead of 200 ms.
. bench/scripts/h200_env.sh > /dev/null
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 100 > $OUT/clocks.csv &
SMI=$!
nvidia-smi --query-gpu=timestamp,clocks_event_reasons.active --format=csv,noheader -lms 250 > $OUT/reasons.csv 2>&1 &
SMI2=$!
stamp() { while IFS= read -r l; do echo "$(date +%H:%M:%S.%N | cut -c1-12) $l"; done; }
B=.h200/s21/gpuscan_bench
for mode in A B C; do
  extra="--no-verify"; [ $mode = B ] && extra=""; [ $mode = C ] && extra="--warmup-ms 2000"
  for round in 1 2; do
    echo "== $mode$round $(date +%H:%M:%S.%N | cut -c1-12)" >> $OUT/log.txt
    $B --min-log2 28 --max-log2 28 --ops select-if,select-flagged --densities 50 --compact-algorithms single-pass \
      --copy-workgroup-sizes 256 --runs 30 $extra --csv /tmp/c.csv 2>&1 | stamp >> $OUT/log.txt
    $B --min-log2 28 --max-log2 28 --types u32 --kinds exclusive --algorithms single-pass \
      --copy-workgroup-sizes 256 --runs 30 $extra --csv /tmp/s.csv 2>&1 | stamp >> $OUT/log.txt
    echo "$mode$round: $(grep -v '^#' /tmp/c.csv | grep -v '^impl' | cut -d, -f4,6 | tr '\n' ' ') $(grep -v '^#' /tmp/s.csv | grep -v '^impl' | cut -d, -f2,6 | tr '\n' ' ')"
  done
done
kill $SMI $SMI2
