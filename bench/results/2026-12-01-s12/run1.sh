# Session 12, first call: session 11's two prepared experiments, run as they were written (run5.sh with
# ncu's timeout cut from 240 to 150 s): the inclusive fold (exp_fold.diff, builds .h200/base and
# .h200/fold) and CUB's kernel resources and ncu profile. Output in first/run4 and first/run5.
S=bench/results/2026-12-01-s11
mkdir -p $OUT/run4 $OUT/run5
(OUT=$OUT/run4 bash $S/run4.sh) 2>&1 | tee $OUT/run4/printed.txt
(OUT=$OUT/run5 bash $S/run5.sh) 2>&1 | tee $OUT/run5/printed.txt
