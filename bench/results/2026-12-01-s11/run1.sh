# Session 11, first call: the 32-bit integer scans' subgroup scan as one inclusive scan plus two shuffles
# (build .h200/new: the working tree, shaders/common/scan_element.glsl) against the code before it (build
# .h200/base: afad28c), alternating in one call, with register counts; u32 and i32, exclusive and inclusive,
# K = 4 and 8; the single-pass compactions; f32 / u64 (unchanged kernels) as a control; CUB beside them;
# then the NVIDIA tests of the new build.
. bench/scripts/h200_env.sh > /dev/null
bash bench/cub/build.sh /tmp/cub_scan_bench > /dev/null 2>&1 || echo "CUB build failed"
for r in a b; do for b in base new; do
  s=""; [ $r = a ] && s=1
  GPUSCAN_PIPELINE_STATS=$s .h200/$b/gpuscan_bench --min-log2 20 --max-log2 28 --step 4 --types u32,i32 --kinds exclusive,inclusive \
    --algorithms single-pass,reduce-then-scan --vectors 4,8 --copy-workgroup-sizes 256 --runs 30 \
    --csv /tmp/$b$r.csv > /dev/null 2> /tmp/$b$r.log
  echo "$b ($r): $(grep -v '^#' /tmp/$b$r.csv | grep -v '^impl' | cut -d, -f2,3,4,5,6 | sed 's/single-pass-w256-//;s/reduce-then-scan-w256-/rts-/' | tr '\n' ' ')"
  [ $r = a ] && grep -i "single_pass.*register" /tmp/$b$r.log | sed 's/.*add //;s/Binary.*Stack Size=0 Local Memory Size=[0-9]*//' | sort -u | head -12
  echo "mismatches: $(grep -ci mismatch /tmp/$b$r.log)"
done; done
for b in base new; do
  .h200/$b/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 \
    --compact-algorithms single-pass --copy-workgroup-sizes 256 --runs 30 --csv /tmp/c$b.csv > /dev/null 2> /tmp/c$b.log
  echo "compact $b: $(grep -v '^#' /tmp/c$b.csv | grep -v '^impl' | cut -d, -f2,4,5,6 | sed 's/select-//' | tr '\n' ' ')"
  echo "mismatches: $(grep -ci mismatch /tmp/c$b.log)"
done
.h200/new/gpuscan_bench --min-log2 24 --max-log2 28 --step 4 --types f32,u64 --kinds exclusive \
  --algorithms single-pass,reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --csv /tmp/tnew.csv > /dev/null 2> /tmp/tnew.log
echo "types new: $(grep -v '^#' /tmp/tnew.csv | grep -v '^impl' | cut -d, -f2,3,5,6 | tr '\n' ' ')"; echo "mismatches: $(grep -ci mismatch /tmp/tnew.log)"
/tmp/cub_scan_bench --sizes 2^20,2^24,2^28 --types u32 --kinds exclusive,inclusive --selects if,flagged --densities 1,50 \
  --warmup 3000 --csv /tmp/cub.csv 2> /tmp/cub.log
echo "cub: $(grep -v '^#' /tmp/cub.csv | cut -d, -f2,3,4,5,6 | tr '\n' ' ')"
cat /tmp/base?.csv /tmp/new?.csv /tmp/c*.csv /tmp/tnew.csv > $OUT/bench.csv; cat /tmp/base?.log /tmp/new?.log /tmp/c*.log /tmp/tnew.log > $OUT/bench.log
cp /tmp/cub.csv /tmp/cub.log $OUT/
timeout 200 .h200/new/gpuscan_gpu_tests --gtest_filter='ScanTest.*:OpsTest.*:All/Compact*:SinglePassFallback.*:DeterminismTest.*:StressTest.*' \
  --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; tail -4 $OUT/tests.log
