# Session 14, prepared and not run then (no device time left; run as session 15's run1.sh): where the single-pass compaction's time goes,
# with no code change. Its kernel reads at 2.2-3.0 TB/s (select-if 1 % at 2^28: 1.07 GB in 0.478 ms)
# while the three-pass count kernel, one tile per workgroup and no look-back, reads at about 3.7 TB/s
# (three-pass select-if 1 % reads the values twice, 2.15 GB, in 0.580 ms; session 13). Session 8 swept
# tiles per workgroup M = 2/4 only, before session 13's whole-tile loads; M = 1 and a longer spin limit
# were never timed for the compaction. Build: `.h200/final` = a stripped, xz-compressed gpuscan_bench
# of the code to measure (see bench/results/2026-12-02-s14/run3.sh for the carry).
. bench/scripts/h200_env.sh > /dev/null
for f in .h200/*/*.xz; do xz -d -T4 "$f"; done
show() { grep -v "^#" $1 | grep -v "^impl" | grep -v "^algorithm" | cut -d, -f2,4,5,6 | sed 's/single-pass/sp/;s/three-pass/3p/;s/select-//;s/,16777216,/,24,/;s/,268435456,/,28,/' | tr '\n' ' '; echo; }
B="--min-log2 24 --max-log2 28 --step 4 --ops select-if,select-flagged --densities 1,50 --copy-workgroup-sizes 256 --runs 30 --no-verify"
.h200/final/gpuscan_bench $B --compact-algorithms single-pass --tiles-per-workgroup 1,2,4 --csv $OUT/m.csv 2> /dev/null
echo "M sweep"; show $OUT/m.csv
.h200/final/gpuscan_bench $B --compact-algorithms single-pass --spins 0,256,4096 --csv $OUT/spins.csv 2> /dev/null
echo "spins"; show $OUT/spins.csv
.h200/final/gpuscan_bench $B --compact-algorithms three-pass --csv $OUT/three.csv 2> /dev/null
echo "three-pass"; show $OUT/three.csv
# Part 2, issue 5 (also not run): the reduce-then-scan shapes of f32 (the deterministic default, 0.67x copy
# at 2^28 against a 0.85x target) and f64 (never swept; session 12 gave u64/i64 W = 64 above 2^23).
S="--min-log2 24 --max-log2 28 --step 2 --algorithms reduce-then-scan --copy-workgroup-sizes 256 --runs 30 --no-verify"
.h200/final/gpuscan_bench $S --types f64 --workgroup-sizes 64,128,256 --vectors 2,4 --csv $OUT/f64.csv 2> /dev/null
echo "f64 RTS"; grep -v "^#" $OUT/f64.csv | cut -d, -f2,3,5,6 | tr '\n' ' '; echo
.h200/final/gpuscan_bench $S --types f32 --workgroup-sizes 64,128,256 --vectors 4,8 --csv $OUT/f32.csv 2> /dev/null
echo "f32 RTS"; grep -v "^#" $OUT/f32.csv | cut -d, -f2,3,5,6 | tr '\n' ' '; echo
