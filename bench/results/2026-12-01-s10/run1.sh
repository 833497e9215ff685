# Session 10, first call: session 9's prepared bench/results/2026-12-01-s9/next_loop.sh, run as it stands
# (build .h200/loop with that folder's exp_loop.diff applied; carry .gl and .h200/loop).
bash bench/results/2026-12-01-s9/next_loop.sh
