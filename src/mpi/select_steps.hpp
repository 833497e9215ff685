// What the host-span and GPU-buffer forms of the distributed compaction share: the check that every rank
// makes the same call, the agreed local compaction, and the ranks' kept counts combined into each rank's
// global offset and the global count: all from one MPI_Allgather after the local compaction.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>

#include "gpuscan/mpi.hpp"

namespace gpuscan::mpi::detail {

struct KeptPlacement {
  uint64_t kept = 0;           // on this rank
  uint64_t global_offset = 0;  // kept on the ranks before this one
  uint64_t global_count = 0;   // kept on all ranks
};

// `local_select` compacts this rank's piece and returns how many it kept; `flagged` says which
// primitive it is (select_flagged or select_if with `predicate`), for the same-call check.
KeptPlacement distributed_select(MPI_Comm comm, bool flagged, DataType type, const Predicate& predicate,
                                 Rebalance rebalance, const std::function<uint64_t()>& local_select);

}  // namespace gpuscan::mpi::detail
