#include "mpi/rebalance.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "gpuscan/error.hpp"
#include "mpi/collective.hpp"

namespace gpuscan::mpi::detail {

namespace {

uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
  const uint64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
  return hi > lo ? hi - lo : 0;
}

}  // namespace

uint64_t share_start(uint64_t total, int r, int ranks) {
  // floor(total · r / ranks) without overflow: total = q · ranks + rem.
  const uint64_t p = static_cast<uint64_t>(ranks), q = total / p, rem = total % p;
  return q * static_cast<uint64_t>(r) + rem * static_cast<uint64_t>(r) / p;
}

uint64_t share_size(uint64_t total, int r, int ranks) {
  return share_start(total, r + 1, ranks) - share_start(total, r, ranks);
}

void rebalance_equal(MPI_Comm comm, const void* local, uint64_t local_count, void* out, uint32_t element_bytes,
                     uint64_t total) {
  const int ranks = size_of(comm);
  const int me = rank_of(comm);
  std::vector<uint64_t> counts(static_cast<size_t>(ranks));
  check_mpi(MPI_Allgather(&local_count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm), "MPI_Allgather");
  // Decided from what every rank knows (all counts, the largest share), so all ranks agree.
  const uint64_t largest = std::max(*std::max_element(counts.begin(), counts.end()), share_size(total, 0, ranks));
  if (largest > static_cast<uint64_t>(INT_MAX))
    throw Error(Errc::too_large, "Rebalance::equal moves at most 2^31 - 1 elements per rank (MPI int counts)");
  std::vector<uint64_t> offsets(static_cast<size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) offsets[r + 1] = offsets[r] + counts[r];

  std::vector<int> send(ranks), send_at(ranks), recv(ranks), recv_at(ranks);
  const uint64_t my0 = share_start(total, me, ranks), my1 = share_start(total, me + 1, ranks);
  for (int r = 0; r < ranks; ++r) {
    const uint64_t r0 = share_start(total, r, ranks), r1 = share_start(total, r + 1, ranks);
    const uint64_t s = overlap(offsets[me], offsets[me + 1], r0, r1);
    const uint64_t g = overlap(offsets[r], offsets[r + 1], my0, my1);
    send[r] = static_cast<int>(s);
    recv[r] = static_cast<int>(g);
    send_at[r] = static_cast<int>(s ? std::max(offsets[me], r0) - offsets[me] : 0);
    recv_at[r] = static_cast<int>(g ? std::max(offsets[r], my0) - my0 : 0);
  }
  MPI_Datatype element;
  check_mpi(MPI_Type_contiguous(static_cast<int>(element_bytes), MPI_BYTE, &element), "MPI_Type_contiguous");
  MPI_Type_commit(&element);
  const int rc = MPI_Alltoallv(local, send.data(), send_at.data(), element, out, recv.data(), recv_at.data(), element,
                               comm);
  MPI_Type_free(&element);
  check_mpi(rc, "MPI_Alltoallv");
}

}  // namespace gpuscan::mpi::detail
