# Session 15, first call: session 14's prepared run4.sh, run as written (build: .h200/final = 08ec609,
# carried as .gl and .h200/final). Output in first/ (printed.txt is what the call printed).
bash bench/results/2026-12-02-s14/run4.sh 2>&1 | tee $OUT/printed.txt
