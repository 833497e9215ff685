# Where the time of gpuscan::mpi's device-piece scan goes on two H200s (device kind nvidia-h200-x2), in
# ONE device call of about 2-3 minutes: gpuscan_mpi_bench --breakdown (mpi::StepTimes per rank, docs/mpi.md)
# at np 1 and np 2 on two GPUs, np 2 on one GPU, np 1 on GPU 1 alone, then the same np 1 / np 2 pair
# with the fence polled 0 ms / until done (GPUSCAN_FENCE_POLL_US) and with --bind-to none.
# Carry .gl, .mpi (Debian 12's Open MPI runtime debs, as run.sh) and $B (default .h200/x2), a folder holding
# gpuscan_mpi_bench built here with -DGPUSCAN_BUILD_MPI=ON -DGPUSCAN_BUILD_BENCH=ON. Raw output per case
# under $OUT (NAME.txt, and NAME.rank<r>.csv with every timed run's steps); stdout has each case's CSV
# row and per-rank breakdown medians (about 7 KB).
. bench/scripts/h200_env.sh > /dev/null
for f in .mpi/*.deb; do dpkg -x "$f" /; done; ldconfig
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export PMIX_MCA_preg=native  # Debian 12's PMIx crashed in mpirun's process-map code there (run.sh)
B=${B:-.h200/x2}
mpirun --version | head -n 1
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,clocks.sm,clocks.max.sm --format=csv,noheader
# GPU utilization and clocks every 100 ms through the whole call, to see both GPUs busy during np 2.
nvidia-smi --query-gpu=timestamp,index,utilization.gpu,clocks.sm,power.draw --format=csv,noheader -lms 100 \
  > $OUT/gpu_samples.csv 2>&1 &
SAMPLER=$!
ARGS="--n 268435456 --runs 50 --warmup 20 --breakdown"
first=1
# case NAME NP [mpirun options...] [-- env assignments]: one run; prints its CSV row and breakdown rows.
case_run() {
  local name=$1 np=$2; shift 2
  echo "== $name ($(date +%T))"
  timeout 60 env "$@" mpirun -np $np $B/gpuscan_mpi_bench $ARGS --breakdown-out $OUT/$name > $OUT/$name.txt 2> $OUT/$name.err
  echo "rc $?"
  case $name in np2_two_gpus|np2_one_gpu|np1_gpu1) grep '^# rank' $OUT/$name.txt | sed 's/(OMPI_COMM_WORLD_LOCAL_RANK=[0-9]*), //' ;; esac
  if [ $first = 1 ]; then grep -m1 '^ranks,' $OUT/$name.txt; grep -m1 '^rank,' $OUT/$name.txt; first=0; fi
  grep -A1 '^ranks,' $OUT/$name.txt | tail -n 1
  grep -A9 '^rank,' $OUT/$name.txt | tail -n +2
  tail -n 2 $OUT/$name.err
}
case_run np1 1
case_run np2_two_gpus 2
case_run np2_one_gpu 2 GPUSCAN_DEVICE=0
case_run np1_gpu1 1 GPUSCAN_DEVICE=1
case_run np1_poll0 1 GPUSCAN_FENCE_POLL_US=0
case_run np2_poll0 2 GPUSCAN_FENCE_POLL_US=0
case_run np1_spin 1 GPUSCAN_FENCE_POLL_US=1000000
case_run np2_spin 2 GPUSCAN_FENCE_POLL_US=1000000
case_run np1_bind_none 1 OMPI_MCA_hwloc_base_binding_policy=none
case_run np2_bind_none 2 OMPI_MCA_hwloc_base_binding_policy=none
case_run np1_again 1
case_run np2_again 2
kill $SAMPLER
echo "== GPU samples (timestamp, index, util %, SM MHz, W) every 100 ms through the call: $OUT/gpu_samples.csv"
