# Session 9, fourth call: the headline figures again with 2 s of warm-up work before every timed batch
# (third call: slow batches are the SM clock left at 345-1035 MHz; 2 s of warm-up avoided all of them),
# spin limits 64 and 1024 side by side, CUB with 3000 warm-up calls. Merged build (.h200/s21).
. bench/scripts/h200_env.sh > /dev/null
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv,noheader -lms 100 > $OUT/clocks.csv &
SMI=$!
B=.h200/s21/gpuscan_bench
$B --min-log2 20 --max-log2 28 --step 2 --types u32 --kinds exclusive --algorithms single-pass,reduce-then-scan --spins 64,1024 \
  --copy-workgroup-sizes 256 --runs 30 --warmup-ms 2000 --no-verify --csv $OUT/scan.csv 2> $OUT/scan.log
echo "scan:"; grep -v "^#" $OUT/scan.csv | grep -v "^impl" | cut -d, -f2,5,6 | sed 's/single-pass-w256-k0/sp/;s/reduce-then-scan/rts/' | tr '\n' ' '; echo
$B --min-log2 20 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --compact-algorithms single-pass,three-pass \
  --spins 64,1024 --copy-workgroup-sizes 256 --runs 30 --warmup-ms 2000 --csv $OUT/compact.csv 2> $OUT/compact.log
echo "compact:"; grep -v "^#" $OUT/compact.csv | grep -v "^impl" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/three-pass/3p/;s/select-//' | tr '\n' ' '; echo
grep -ciE "mismatch|FAIL" $OUT/compact.log
.h200/cub2/cub_scan_bench --sizes 2^20,2^22,2^24,2^26,2^28 --types u32 --kinds exclusive --selects if,flagged --densities 1,50 \
  --warmup 3000 --csv $OUT/cub.csv 2> $OUT/cub.log
echo "cub rc=$?"; grep -v "^#" $OUT/cub.csv | cut -d, -f2,3,4,5,6 | tr '\n' ' '; echo
kill $SMI
