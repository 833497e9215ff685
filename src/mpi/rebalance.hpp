// Rebalance::equal, shared by the host-span and GPU-buffer compactions: the kept elements move with
// MPI_Alltoallv so that rank r holds [share_start(K, r), share_start(K, r + 1)) of the K kept.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace gpuscan::mpi::detail {

// First global index of rank r's share when `total` elements are split evenly over `ranks`.
uint64_t share_start(uint64_t total, int r, int ranks);

// This rank's share of `total`: share_start(r + 1) - share_start(r).
uint64_t share_size(uint64_t total, int r, int ranks);

// Collective: `local` holds this rank's `local_count` kept elements of `element_bytes` each (they follow
// those of the lower ranks in the result, `total` in all); `out` receives this rank's share (room for
// share_size elements). Throws Errc::too_large on every rank, before moving anything, if a rank's count
// or share passes MPI's int counts.
void rebalance_equal(MPI_Comm comm, const void* local, uint64_t local_count, void* out, uint32_t element_bytes,
                     uint64_t total);

}  // namespace gpuscan::mpi::detail
