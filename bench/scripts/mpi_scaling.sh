#!/usr/bin/env bash
# Weak scaling of gpuscan::mpi on a machine with two GPUs: np 1 and np 2 alternating ROUNDS times, each
# run after 300 warm-up scans (idle H200s start at 345 MHz; 20 warm-up scans left them low in some runs),
# 100 timed calls, 2^28 u32 per rank, with each rank's median per step (docs/mpi.md). Writes
# OUT_DIR/r<round>_np<ranks>.txt and OUT_DIR/run.txt, which bench/scripts/results_md.py reads as the
# MPI table (copy OUT_DIR to bench/results/current/mpi).
#
#   bench/scripts/mpi_scaling.sh MPI_BENCH OUT_DIR [ROUNDS]
#
# MPI_BENCH is the built gpuscan_mpi_bench (-DGPUSCAN_BUILD_MPI=ON). MPIRUN names the launcher and its
# options (default "mpirun"; as root in a container "mpirun --allow-run-as-root"); N the elements per rank.
set -uo pipefail
if [ $# -lt 2 ]; then sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; fi
bench=$1 out=$2 rounds=${3:-3}
n=${N:-268435456}
read -r -a mpirun <<< "${MPIRUN:-mpirun}"
mkdir -p "$out" || exit 2
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 2>/dev/null)
{
  echo "# bench/scripts/mpi_scaling.sh $*"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | paste -sd, -) on $(uname -n)"
  [ -n "$driver" ] && echo "driver: $driver"
  echo "mpi: $("${mpirun[0]}" --version 2>/dev/null | head -n 1)"
  echo "command: ${mpirun[*]} -np N $(basename "$bench") --n $n --runs 100 --warmup 300 --breakdown"
} > "$out/run.txt"
failures=0
for round in $(seq "$rounds"); do
  for np in 1 2; do
    "${mpirun[@]}" -np "$np" "$bench" --n "$n" --runs 100 --warmup 300 --breakdown \
      > "$out/r${round}_np$np.txt" 2> "$out/r${round}_np$np.err"
    rc=$?
    [ "$rc" -eq 0 ] || failures=$((failures + 1))
    echo "rc r${round}_np$np.txt: $rc" >> "$out/run.txt"
    # ranks,n_per_rank,median_ms,min_ms,local_median_ms,local_min_ms,runs,mismatches
    echo "round $round np $np: rc $rc, $(grep -A1 '^ranks,' "$out/r${round}_np$np.txt" | tail -n 1)"
  done
done
echo "failures: $failures" >> "$out/run.txt"
[ "$failures" -eq 0 ]
