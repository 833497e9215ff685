# Session 7, seventh call: are the single-pass scan's slow batches (3-4x, while copy and reduce-then-scan
# beside them are not) fallback storms? Spin limits 64 / 512 / 4096 at the defaults, u32 and f32, exclusive
# and inclusive, 2^26 and 2^28, two rounds; with the register counts (inclusive ran 15-20 % slower).
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2; do
  GPUSCAN_PIPELINE_STATS=1 .h200/s14/gpuscan_bench --min-log2 26 --max-log2 28 --step 2 --types u32,f32 --kinds exclusive,inclusive \
    --algorithms single-pass --spins 64,512,4096 --runs 30 --copy-workgroup-sizes 256 --no-verify --csv $OUT/r$round.csv 2> $OUT/r$round.log
  echo "round $round rc=$?"
  [ $round = 1 ] && grep "gpuscan pipeline single" $OUT/r1.log | sed 's/gpuscan pipeline //' | cut -d' ' -f1,2,4-5 | sed 's/Register Count/r/' | tr '\n' ' '; echo
  grep -v "^#" $OUT/r$round.csv | grep -v "^impl" | cut -d, -f2,3,4,5,6 | sed 's/single-pass-/sp-/;s/exclusive/ex/;s/inclusive/in/' | tr '\n' ' '; echo
done
