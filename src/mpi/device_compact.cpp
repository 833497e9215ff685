// Distributed stream compaction on pieces in GPU buffers (DeviceSelectPiece): the host-span form's MPI
// step (mpi/select_steps.hpp) after one local submission that compacts into the caller's output and
// leaves the kept count in a host-visible word (and, if asked, in the caller's count buffer); with
// Rebalance::equal, the kept elements then move between ranks through host memory.
#include <cstddef>
#include <cstring>

#include "gpuscan/mpi.hpp"
#include "mpi/collective.hpp"
#include "mpi/device_submit.hpp"
#include "mpi/rebalance.hpp"
#include "mpi/select_steps.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::mpi {

namespace {

// The local compaction: into the caller's output, the kept count into the Context's host-visible scratch
// (and, unless the result is rebalanced afterwards, into count_out). Returns the kept count.
template <Element T>
uint64_t local_select(const Context& ctx, const DeviceSelectPiece& piece, bool flagged, const Predicate& predicate,
                      const CompactConfig& config, Rebalance rebalance) {
  const bool count_wanted = piece.count_out.buffer != VK_NULL_HANDLE;
  if (count_wanted && !(piece.count_out.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
    throw Error(Errc::missing_usage,
                "count_out buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT (gpuscan::mpi copies the count into it)");
  constexpr VkBufferUsageFlags transfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (rebalance == Rebalance::equal && piece.output.buffer != VK_NULL_HANDLE && (piece.output.usage & transfer) != transfer)
    throw Error(Errc::missing_usage,
                "with Rebalance::equal the output buffer needs VK_BUFFER_USAGE_TRANSFER_SRC_BIT and "
                "VK_BUFFER_USAGE_TRANSFER_DST_BIT (the kept elements are copied out and the share back in)");
  const TempRequirements req = compact_temp_requirements(ctx, piece.count, config);  // validates config
  const bool copy_count = count_wanted && rebalance == Rebalance::none;  // else the share's size goes there later
  if (piece.count == 0) {  // nothing to compact, but a count buffer still gets its 0
    if (copy_count)
      detail::submit_between_barriers(ctx, {}, [&](VkCommandBuffer cmd) {
        impl_of(ctx).fn.vkCmdFillBuffer(cmd, piece.count_out.buffer, piece.count_out.offset, sizeof(uint32_t), 0);
      });
    return 0;
  }
  const auto lock = detail::scratch_lock(ctx);
  vk::OwnedBuffer& temp = detail::scratch(ctx, req.size, false);
  vk::OwnedBuffer& kept = detail::scratch(ctx, sizeof(uint32_t), true);
  SelectArgs args;
  args.config = config;
  args.count = piece.count;
  args.input = piece.input;
  args.flags = piece.flags;
  args.predicate = predicate;
  args.output = piece.output;
  args.count_out = kept.view();
  args.temp = temp.view();
  detail::submit_between_barriers(ctx, {&temp, &kept}, [&](VkCommandBuffer cmd) {
    if (flagged) record_select_flagged(ctx, cmd, args);
    else record_select_if(ctx, cmd, args);
    if (copy_count) {
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      const VkBufferCopy region{0, piece.count_out.offset, sizeof(uint32_t)};
      impl_of(ctx).fn.vkCmdCopyBuffer(cmd, kept.handle(), piece.count_out.buffer, 1, &region);
    }
  });
  uint32_t n = 0;
  std::memcpy(&n, kept.mapped(), sizeof n);
  return n;
}

// Rebalance::equal of pieces in GPU buffers, staged through host memory: each rank copies its kept
// elements into a host-visible buffer, MPI_Alltoallv moves them (rebalance.hpp, as for host spans), and
// each rank copies its share back into the front of its output. Every local step is agreed, so a rank
// whose output has no room for its share throws on every rank before anything moves.
template <Element T>
DeviceSelection rebalance(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece,
                          const detail::KeptPlacement& placed, const char* what) {
  const int rank = detail::rank_of(comm), ranks = detail::size_of(comm);
  const uint64_t share = detail::share_size(placed.global_count, rank, ranks);
  const VkDeviceSize kept_bytes = placed.kept * sizeof(T), share_bytes = share * sizeof(T);
  vk::OwnedBuffer staging;  // [kept elements | share]
  detail::run_agreed(comm, what, [&] {
    const VkDeviceSize room =
        piece.output.buffer_size > piece.output.offset ? piece.output.buffer_size - piece.output.offset : 0;
    if (room / sizeof(T) < share)
      throw Error(Errc::buffer_too_small, "Rebalance::equal: this rank's share of the result is " +
                                              std::to_string(share) + " elements, but its output buffer has room for " +
                                              std::to_string(room / sizeof(T)) + " from its offset");
    staging = vk::OwnedBuffer(ctx, std::max<VkDeviceSize>(kept_bytes + share_bytes, 4),
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              vk::MemoryKind::host_readback);  // MPI reads it: cached where offered
    if (placed.kept)
      detail::submit_between_barriers(ctx, {&staging}, [&](VkCommandBuffer cmd) {
        const VkBufferCopy region{piece.output.offset, 0, kept_bytes};
        impl_of(ctx).fn.vkCmdCopyBuffer(cmd, piece.output.buffer, staging.handle(), 1, &region);
      });
  });
  auto* base = static_cast<std::byte*>(staging.mapped());
  detail::rebalance_equal(comm, base, placed.kept, base + kept_bytes, sizeof(T), placed.global_count);
  detail::run_agreed(comm, what, [&] {
    const bool count_wanted = piece.count_out.buffer != VK_NULL_HANDLE;
    if (share == 0 && !count_wanted) return;
    detail::submit_between_barriers(ctx, {&staging}, [&](VkCommandBuffer cmd) {
      if (share) {
        const VkBufferCopy region{kept_bytes, piece.output.offset, share_bytes};
        impl_of(ctx).fn.vkCmdCopyBuffer(cmd, staging.handle(), piece.output.buffer, 1, &region);
      }
      if (count_wanted)
        impl_of(ctx).fn.vkCmdFillBuffer(cmd, piece.count_out.buffer, piece.count_out.offset, sizeof(uint32_t),
                        static_cast<uint32_t>(share));
    });
  });
  return {share, detail::share_start(placed.global_count, rank, ranks), placed.global_count};
}

template <Element T>
DeviceSelection select(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece, bool flagged,
                       Predicate predicate, CompactConfig config, Rebalance how) {
  config.type = data_type_of<T>::value;
  const detail::KeptPlacement placed = detail::distributed_select(
      comm, flagged, config.type, predicate, how,
      [&] { return local_select<T>(ctx, piece, flagged, predicate, config, how); });
  if (how == Rebalance::equal)
    return rebalance<T>(ctx, comm, piece, placed,
                        flagged ? "gpuscan::mpi::select_flagged (Rebalance::equal)"
                                : "gpuscan::mpi::select_if (Rebalance::equal)");
  return {placed.kept, placed.global_offset, placed.global_count};
}

}  // namespace

template <Element T>
DeviceSelection select_if(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece, Predicate predicate,
                          CompactConfig config, Rebalance rebalance) {
  return select<T>(ctx, comm, piece, false, predicate, config, rebalance);
}

template <Element T>
DeviceSelection select_flagged(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece,
                               CompactConfig config, Rebalance rebalance) {
  return select<T>(ctx, comm, piece, true, {}, config, rebalance);
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                                              \
  template DeviceSelection select_if<T>(const Context&, MPI_Comm, const DeviceSelectPiece&, Predicate,        \
                                        CompactConfig, Rebalance);                                            \
  template DeviceSelection select_flagged<T>(const Context&, MPI_Comm, const DeviceSelectPiece&, CompactConfig, \
                                             Rebalance);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
