# Session 16, third call: the headline comparison on the current build, in one call: gpuscan_bench
# (u32, f32, u64; exclusive and inclusive; single-pass, ordered single-pass for f32, reduce-then-scan;
# the GLSL copy roofline in the same process) and CUB's DeviceScan on the same sizes, then
# bench/scripts/compare.py's tables. Plots are drawn from the CSVs afterwards (plot.py; no matplotlib
# on the device). `.h200/head` = this session's build; timings --no-verify (its kernels were
# CPU-checked in the first call; the u32/u64 ones are unchanged since session 12, CPU-checked then).
. bench/scripts/h200_env.sh > /dev/null
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
t0=$(date +%s)
(bash bench/cub/build.sh /tmp/cub_scan_bench > /tmp/cub_build.log 2>&1; echo "cub build rc=$?" >> /tmp/cub_build.log) &
.h200/head/gpuscan_bench --min-log2 12 --max-log2 28 --step 2 --types u32,f32,u64 --kinds exclusive,inclusive \
  --algorithms single-pass,single-pass-ordered,reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --no-verify \
  --csv $OUT/gpuscan.csv 2> /tmp/gpuscan.err
echo "gpuscan rc=$? $(( $(date +%s) - t0 ))s"
wait; cat /tmp/cub_build.log | tail -2
/tmp/cub_scan_bench --sizes 2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28 --warmup 3000 --types u32,f32,u64 \
  --csv $OUT/cub.csv > /tmp/cub.log 2>&1
echo "cub rc=$? $(( $(date +%s) - t0 ))s"; grep -iE "mismatch|error" /tmp/cub.log | head -5
python3 bench/scripts/compare.py $OUT/gpuscan.csv $OUT/cub.csv --md $OUT/results.md > /dev/null
echo "compare rc=$?"; grep -A14 "u32 exclusive" $OUT/results.md | head -16
