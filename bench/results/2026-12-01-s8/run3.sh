# Session 8, third call: the staged single-pass compaction with every row's loads issued before the
# ballots. Compaction GPU tests, then select-if / select-flagged at 1 % and 50 %, 2^24 and 2^28, W = 256:
# single-pass K = 4 and 8 with M = 1, 2, 4, and three-pass K = 4, every case CPU-checked before timing;
# two rounds (the copy's slow batches); CUB DeviceSelect in the same call.
. bench/scripts/h200_env.sh > /dev/null
.h200/s17/gpuscan_gpu_tests --gtest_filter='*Compact*' > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|tests ran|FAILED" $OUT/tests.log | head -12
for round in 1 2; do
  GPUSCAN_PIPELINE_STATS=$((round == 1)) .h200/s17/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
    --compact-algorithms three-pass,single-pass --workgroup-sizes 256 --vectors 4,8 --tiles-per-workgroup 1,2,4 \
    --copy-workgroup-sizes 256 --runs 30 --csv $OUT/compact$round.csv 2> $OUT/compact$round.log
  echo "round $round rc=$?"; grep -v "^#" $OUT/compact$round.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-/sp-/;s/three-pass/3p/;s/select-//;s/-w256//' | tr '\n' ' '; echo
  grep -iE "mismatch|FAIL" $OUT/compact$round.log | head -5
done
grep "^gpuscan pipeline compact_single" $OUT/compact1.log | sed -E 's/ \[[^]]*\].*(Register Count=[0-9]+).*/ \1/' | sort -u | head
.h200/cub2/cub_scan_bench --sizes 2^24,2^28 --selects if,flagged --densities 1,50 --select-only --csv $OUT/cub_compact.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub_compact.csv | cut -d, -f2,4,5,6 | tr '\n' ' '; echo
