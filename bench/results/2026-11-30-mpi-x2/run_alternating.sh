# Weak scaling on two H200s with the GPUs kept at speed: np 1 and np 2 alternate three times each, every
# run preceded by 300 warm-up scans (about 0.3 s of GPU work, so the clocks have ramped up: run_breakdown.sh's
# 20 warm-up scans left them low in some cases), 100 timed scans, breakdown per rank.
# Carry .gl, .mpi and $B (default .h200/x2s4: gpuscan_mpi_bench, Release, -DGPUSCAN_BUILD_MPI=ON).
. bench/scripts/h200_env.sh > /dev/null
for f in .mpi/*.deb; do dpkg -x "$f" /; done; ldconfig
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export PMIX_MCA_preg=native
B=${B:-.h200/x2s4}
for round in 1 2 3; do
  for np in 1 2; do
    echo "== round $round np $np ($(date +%T))"
    timeout 90 mpirun -np $np $B/gpuscan_mpi_bench --n 268435456 --runs 100 --warmup 300 --breakdown \
      > $OUT/r${round}_np$np.txt 2> $OUT/r${round}_np$np.err
    echo "rc $?"
    grep -A1 '^ranks,' $OUT/r${round}_np$np.txt | tail -n 1
    grep -A2 '^rank,' $OUT/r${round}_np$np.txt | tail -n +2 | cut -d, -f1,2,5,6,7,11,12,17
  done
done
