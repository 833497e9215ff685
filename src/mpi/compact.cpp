// Distributed stream compaction: local compaction on each rank's GPU, then the ranks' counts exchanged
// in one MPI_Allgather (offsets and the total follow on every rank), optionally rebalanced (MPI_Alltoallv).
#include "gpuscan/mpi.hpp"
#include "mpi/collective.hpp"
#include "mpi/rebalance.hpp"
#include "mpi/select_steps.hpp"

namespace gpuscan::mpi {

namespace {

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
    const int rank = detail::rank_of(comm), ranks = detail::size_of(comm);
    std::vector<T> share(detail::share_size(result.global_count, rank, ranks));
    detail::rebalance_equal(comm, result.values.data(), result.values.size(), share.data(), sizeof(T),
                            result.global_count);
    result.values = std::move(share);
    result.global_offset = detail::share_start(result.global_count, rank, ranks);
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
  // One collective: the same-call check, the error agreement and every rank's kept count.
  // run_start reads the element before each one, which for a piece's first element another rank holds;
  // refused inside the step, so that every rank agrees on the error.
  const auto checked_select = [&] {
    if (!flagged && predicate.kind == PredicateKind::run_start)
      throw Error(Errc::unsupported, "the run_start predicate compares each element with the one before, which "
                                     "for a piece's first element another rank holds: not offered across ranks");
    return local_select();
  };
  const std::vector<uint64_t> counts = gather_after_step(
      comm, call, flagged ? "gpuscan::mpi::select_flagged" : "gpuscan::mpi::select_if", checked_select);
  const size_t me = static_cast<size_t>(rank_of(comm));
  KeptPlacement placed;
  placed.kept = counts[me];
  for (size_t r = 0; r < counts.size(); ++r) {
    if (r < me) placed.global_offset += counts[r];
    placed.global_count += counts[r];
  }
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
