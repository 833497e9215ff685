# Session 8, seventh call: not run (no device time left). Session 9 ran it, with a wider test filter, as
# bench/results/2026-12-01-s9/run1.sh (results in that folder's first/).
