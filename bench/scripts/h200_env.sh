# The H200 device machine's setup, sourced before the benchmarks there (docs/bench.md, "On the H200
# machine"): unpack the carried Vulkan/EGL loaders (.gl/*.deb) and point them at NVIDIA's driver; with
# .mpi/*.deb carried too (Debian 12's Open MPI), unpack those and set Open MPI up for root, shared
# memory only. Nothing here is needed on a machine whose loaders and MPI are installed.
for f in .gl/*.deb; do dpkg -x "$f" /; done
if compgen -G ".mpi/*.deb" > /dev/null; then
  for f in .mpi/*.deb; do dpkg -x "$f" /; done
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
  export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  # Debian 12's PMIx crashed in mpirun's process-map code there; its native regex component works.
  export PMIX_MCA_preg=native
fi
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used --format=csv,noheader
