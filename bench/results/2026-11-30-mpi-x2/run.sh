# Session 3 on two H200s of one host (device kind nvidia-h200-x2): weak scaling of gpuscan::mpi's
# exclusive scan on GPU buffers, 2^28 u32 per rank, np 1 then np 2, twice each (docs/mpi.md).
# Open MPI is not on the device image: Debian 12's runtime packages are carried in .mpi/ and unpacked as
# the Vulkan loader is (bench/scripts/h200_env.sh). Shared memory only (vader), no ssh, as root.
. bench/scripts/h200_env.sh > /dev/null
for f in .mpi/*.deb; do dpkg -x "$f" /; done; ldconfig
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# Debian 12's PMIx crashed in mpirun (pmix_preg_base_generate_ppn) on that machine; its native regex
# component works.
export PMIX_MCA_preg=native
mpirun --version | head -n 1; nvidia-smi -L
B=.h200/x2
for i in 1 2; do
  for np in 1 2; do
    (sleep 8; nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader > $OUT/apps_np${np}_$i.txt) &
    mpirun -np $np $B/gpuscan_mpi_bench --n 268435456 --runs 20 > $OUT/np${np}_$i.csv 2> $OUT/np${np}_$i.err
    wait
    echo "== np $np run $i"; cat $OUT/np${np}_$i.csv; tail -n 3 $OUT/np${np}_$i.err; cat $OUT/apps_np${np}_$i.txt
  done
done
