# Session 12, fifth call: do 8-byte scans gain from a smaller W with a larger K, as inclusive u32 did
# (the same tile, fewer registers per SM)? u64 single-pass and reduce-then-scan, W = 64/128/256 x
# K = 2/4/8, 2^24-2^28, register counts printed, --no-verify; .h200/new (this session's code).
. bench/scripts/h200_env.sh > /dev/null
GPUSCAN_PIPELINE_STATS=1 .h200/new/gpuscan_bench --min-log2 24 --max-log2 28 --step 2 --types u64 --kinds exclusive,inclusive \
  --algorithms single-pass,reduce-then-scan --workgroup-sizes 64,128,256 --vectors 2,4,8 --runs 30 \
  --copy-workgroup-sizes 256 --no-verify --csv $OUT/u64.csv 2> $OUT/u64.log
echo "u64 rc=$?"
grep "gpuscan pipeline" $OUT/u64.log | grep -E "single_pass|reduce_tiles|scan_tiles" | sed 's/gpuscan pipeline //;s/Binary.*//' | sort -u | head -60
grep -v "^#" $OUT/u64.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass-/sp-/;s/reduce-then-scan-/rts-/' | tr '\n' ' '; echo
