# Session 7, eighth call: spin limit 64 against 512 over three rounds (u32/f32 exclusive, 2^27-2^29, the
# defaults otherwise), and inclusive scans with K = 4 against 8 beside reduce-then-scan (2^24, 2^26, 2^28).
. bench/scripts/h200_env.sh > /dev/null
for round in 1 2 3; do
  .h200/s14/gpuscan_bench --min-log2 27 --max-log2 29 --step 1 --types u32,f32 --kinds exclusive \
    --algorithms single-pass --spins 64,512 --runs 30 --copy-workgroup-sizes 256 --no-verify --csv $OUT/s$round.csv 2> $OUT/s$round.log
  echo "spins round $round rc=$?"; grep -v "^#" $OUT/s$round.csv | grep -v "^impl" | cut -d, -f2,3,5,6 | sed 's/single-pass-/sp-/' | tr '\n' ' '; echo
done
.h200/s14/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u32 --kinds inclusive \
  --algorithms single-pass,reduce-then-scan --vectors 4,8 --runs 30 --copy-workgroup-sizes 256 --no-verify --csv $OUT/inc.csv 2> $OUT/inc.log
echo "inclusive rc=$?"; grep -v "^#" $OUT/inc.csv | grep -v "^impl" | cut -d, -f2,3,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo
