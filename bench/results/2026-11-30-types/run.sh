set -uo pipefail
. bench/scripts/h200_env.sh > /dev/null
out=$OUT
start=$SECONDS
B=.h200/s4/gpuscan_bench64
$B --min-log2 20 --max-log2 28 --step 4 --types u32,i32,f32,u64,f64 --operators add --kinds exclusive \
   --algorithms reduce-then-scan,single-pass --copy-workgroup-sizes 256,512 --runs 30 --csv $out/types.csv 2> $out/types_log.txt
echo "types rc=$? $((SECONDS-start)) s"
$B --min-log2 20 --max-log2 28 --step 4 --types u32,f32 --operators min,max --kinds exclusive \
   --algorithms reduce-then-scan,single-pass --copy-workgroup-sizes 256,512 --runs 30 --csv $out/minmax.csv 2> $out/minmax_log.txt
echo "minmax rc=$? $((SECONDS-start)) s"
.h200/s2/cub_bench --sizes 2^20,2^24,2^28 --types u32,f32,u64 --kinds exclusive --csv $out/cub_types.csv 2> $out/cub_log.txt
echo "cub rc=$? $((SECONDS-start)) s"
grep -E "MISMATCH|rror" $out/*_log.txt | head
