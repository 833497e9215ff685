// Distributed stream compaction: local compaction on each rank's GPU, then the ranks' counts combined
// with MPI (offsets by MPI_Exscan, the total by MPI_Allreduce), optionally rebalanced (MPI_Alltoallv).
#include <climits>

#include "gpuscan/mpi.hpp"
#include "mpi/collective.hpp"
#include "mpi/select_steps.hpp"

namespace gpuscan::mpi {

namespace {

enum Primitive : uint32_t { primitive_select_if = 1, primitive_select_flagged = 2 };

std::string describe(const detail::CallSignature& s) {
  std::string name = s.primitive == primitive_select_if       ? "select_if"
                     : s.primitive == primitive_select_flagged ? "select_flagged"
                                                               : "primitive " + std::to_string(s.primitive);
  name += "<" + std::string(to_string(static_cast<DataType>(s.type))) + ">";
  if (s.primitive == primitive_select_if) name += " with predicate " + std::string(to_string(static_cast<PredicateKind>(s.op)));
  name += s.variant == static_cast<uint32_t>(Rebalance::equal) ? ", Rebalance::equal" : ", Rebalance::none";
  return name;
}

// First global index of rank r's share when `total` elements are split evenly over `ranks`.
uint64_t share_start(uint64_t total, int r, int ranks) {
  // floor(total · r / ranks) without overflow: total = q · ranks + rem.
  const uint64_t p = static_cast<uint64_t>(ranks), q = total / p, rem = total % p;
  return q * static_cast<uint64_t>(r) + rem * static_cast<uint64_t>(r) / p;
}

uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
  const uint64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
  return hi > lo ? hi - lo : 0;
}

// Moves the kept elements so that rank r holds [share_start(r), share_start(r + 1)) of the result.
template <Element T>
std::vector<T> rebalance_equal(MPI_Comm comm, const std::vector<T>& local, uint64_t total) {
  const int ranks = detail::size_of(comm);
  const int me = detail::rank_of(comm);
  std::vector<uint64_t> counts(static_cast<size_t>(ranks));
  const uint64_t mine = local.size();
  detail::check_mpi(MPI_Allgather(&mine, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm), "MPI_Allgather");
  std::vector<uint64_t> offsets(static_cast<size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) offsets[r + 1] = offsets[r] + counts[r];

  // Every rank computes every count from the same data, so all agree on whether they fit in an int.
  std::vector<int> send(ranks), send_at(ranks), recv(ranks), recv_at(ranks);
  const uint64_t my0 = share_start(total, me, ranks), my1 = share_start(total, me + 1, ranks);
  for (int r = 0; r < ranks; ++r) {
    const uint64_t s = overlap(offsets[me], offsets[me + 1], share_start(total, r, ranks), share_start(total, r + 1, ranks));
    const uint64_t g = overlap(offsets[r], offsets[r + 1], my0, my1);
    if (std::max(offsets[me + 1], my1) > static_cast<uint64_t>(INT_MAX))
      throw Error(Errc::too_large, "Rebalance::equal moves at most 2^31 - 1 elements per rank (MPI int counts)");
    send[r] = static_cast<int>(s);
    recv[r] = static_cast<int>(g);
    send_at[r] = static_cast<int>(s ? std::max(offsets[me], share_start(total, r, ranks)) - offsets[me] : 0);
    recv_at[r] = static_cast<int>(g ? std::max(offsets[r], my0) - my0 : 0);
  }
  MPI_Datatype element;
  detail::check_mpi(MPI_Type_contiguous(sizeof(T), MPI_BYTE, &element), "MPI_Type_contiguous");
  MPI_Type_commit(&element);
  std::vector<T> out(my1 - my0);
  const int rc = MPI_Alltoallv(local.data(), send.data(), send_at.data(), element, out.data(), recv.data(),
                               recv_at.data(), element, comm);
  MPI_Type_free(&element);
  detail::check_mpi(rc, "MPI_Alltoallv");
  return out;
}

template <Element T>
Selection<T> select(const Context& ctx, MPI_Comm comm, std::span<const T> piece, const std::span<const uint32_t>* flags,
                    Predicate predicate, CompactConfig config, Rebalance rebalance) {
  config.type = data_type_of<T>::value;
  Selection<T> result;
  const detail::KeptPlacement placed =
      detail::distributed_select(comm, flags != nullptr, config.type, predicate, rebalance, [&] {
        result.values = flags ? gpuscan::select_flagged<T>(ctx, piece, *flags, config)
                              : gpuscan::select_if<T>(ctx, piece, predicate, config);
        return static_cast<uint64_t>(result.values.size());
      });
  result.global_offset = placed.global_offset;
  result.global_count = placed.global_count;
  if (rebalance == Rebalance::equal) {
    result.values = rebalance_equal(comm, result.values, result.global_count);
    result.global_offset = share_start(result.global_count, detail::rank_of(comm), detail::size_of(comm));
  }
  return result;
}

}  // namespace

namespace detail {

KeptPlacement distributed_select(MPI_Comm comm, bool flagged, DataType type, const Predicate& predicate,
                                 Rebalance rebalance, const std::function<uint64_t()>& local_select) {
  CallSignature call;
  call.primitive = flagged ? primitive_select_flagged : primitive_select_if;
  call.type = static_cast<uint32_t>(type);
  call.op = flagged ? 0 : static_cast<uint32_t>(predicate.kind);
  call.variant = static_cast<uint32_t>(rebalance);
  require_same_call(comm, call, describe);

  KeptPlacement placed;
  run_agreed(comm, flagged ? "gpuscan::mpi::select_flagged" : "gpuscan::mpi::select_if",
             [&] { placed.kept = local_select(); });
  check_mpi(MPI_Exscan(&placed.kept, &placed.global_offset, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan");
  if (rank_of(comm) == 0) placed.global_offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  check_mpi(MPI_Allreduce(&placed.kept, &placed.global_count, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return placed;
}

}  // namespace detail

template <Element T>
Selection<T> select_if(const Context& ctx, MPI_Comm comm, std::span<const T> piece, Predicate predicate,
                       CompactConfig config, Rebalance rebalance) {
  return select<T>(ctx, comm, piece, nullptr, predicate, config, rebalance);
}

template <Element T>
Selection<T> select_flagged(const Context& ctx, MPI_Comm comm, std::span<const T> piece,
                            std::span<const uint32_t> flags, CompactConfig config, Rebalance rebalance) {
  return select<T>(ctx, comm, piece, &flags, {}, config, rebalance);
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                                              \
  template Selection<T> select_if(const Context&, MPI_Comm, std::span<const T>, Predicate, CompactConfig,      \
                                  Rebalance);                                                                   \
  template Selection<T> select_flagged(const Context&, MPI_Comm, std::span<const T>, std::span<const uint32_t>, \
                                       CompactConfig, Rebalance);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
