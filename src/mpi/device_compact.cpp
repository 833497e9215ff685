// Distributed stream compaction on pieces in GPU buffers (DeviceSelectPiece): the host-span form's MPI
// step (mpi/select_steps.hpp) after one local submission that compacts into the caller's output and
// leaves the kept count in a host-visible word (and, if asked, in the caller's count buffer).
#include <cstring>

#include "gpuscan/mpi.hpp"
#include "mpi/device_submit.hpp"
#include "mpi/select_steps.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::mpi {

namespace {

template <Element T>
DeviceSelection select(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece, bool flagged,
                       Predicate predicate, CompactConfig config) {
  config.type = data_type_of<T>::value;
  const detail::KeptPlacement placed =
      detail::distributed_select(comm, flagged, config.type, predicate, Rebalance::none, [&]() -> uint64_t {
        const bool count_wanted = piece.count_out.buffer != VK_NULL_HANDLE;
        if (count_wanted && !(piece.count_out.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
          throw Error(Errc::missing_usage,
                      "count_out buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT (gpuscan::mpi copies the count into it)");
        const TempRequirements req = compact_temp_requirements(ctx, piece.count, config);  // validates config
        if (piece.count == 0) {  // nothing to compact, but a count buffer still gets its 0
          if (count_wanted)
            detail::submit_between_barriers(ctx, {}, [&](VkCommandBuffer cmd) {
              vkCmdFillBuffer(cmd, piece.count_out.buffer, piece.count_out.offset, sizeof(uint32_t), 0);
            });
          return 0;
        }
        vk::OwnedBuffer temp = detail::temp_buffer(ctx, req);
        vk::OwnedBuffer kept(ctx.physical_device(), ctx.device(), sizeof(uint32_t),
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             vk::MemoryKind::host_visible);
        SelectArgs args;
        args.config = config;
        args.count = piece.count;
        args.input = piece.input;
        args.flags = piece.flags;
        args.predicate = predicate;
        args.output = piece.output;
        args.count_out = kept.view();
        args.temp = detail::view_or_empty(temp);
        detail::submit_between_barriers(ctx, {&temp, &kept}, [&](VkCommandBuffer cmd) {
          if (flagged) record_select_flagged(ctx, cmd, args);
          else record_select_if(ctx, cmd, args);
          if (count_wanted) {
            vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            const VkBufferCopy region{0, piece.count_out.offset, sizeof(uint32_t)};
            vkCmdCopyBuffer(cmd, kept.handle(), piece.count_out.buffer, 1, &region);
          }
        });
        uint32_t n = 0;
        std::memcpy(&n, kept.mapped(), sizeof n);
        return n;
      });
  return {placed.kept, placed.global_offset, placed.global_count};
}

}  // namespace

template <Element T>
DeviceSelection select_if(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece, Predicate predicate,
                          CompactConfig config) {
  return select<T>(ctx, comm, piece, false, predicate, config);
}

template <Element T>
DeviceSelection select_flagged(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece,
                               CompactConfig config) {
  return select<T>(ctx, comm, piece, true, {}, config);
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                                              \
  template DeviceSelection select_if<T>(const Context&, MPI_Comm, const DeviceSelectPiece&, Predicate,        \
                                        CompactConfig);                                                       \
  template DeviceSelection select_flagged<T>(const Context&, MPI_Comm, const DeviceSelectPiece&, CompactConfig);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
