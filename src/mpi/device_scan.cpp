// Distributed scan and reduce on pieces in GPU buffers (DevicePiece): the host-span form's MPI steps
// (mpi/scan_steps.hpp) around two local submissions, a reduce into one host-visible element and a scan
// of the caller's buffers with the carry-in as ScanArgs::initial_bits. Only one element per rank
// crosses to the host.
#include <cstring>
#include <mutex>

#include "gpuscan/mpi.hpp"
#include "gpuscan/reduce.hpp"
#include "mpi/scan_steps.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::mpi {

namespace {

// The barriers of the contract in mpi.hpp. First command: everything earlier on the queue (its writes
// made available) before gpuscan's compute shaders and transfers (the scan's temp clear).
void barrier_before(VkCommandBuffer cmd) {
  vk::memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}
// Last command: gpuscan's compute writes before everything later on the queue, and the host.
void barrier_after(VkCommandBuffer cmd) {
  vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                     VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
}

// Submits and waits, keeping `owned` alive: after a timeout the GPU may still use them, so they go to
// the Context's abandoned list (freed when it is destroyed), as the convenience calls do.
void submit_holding(const Context& ctx, std::initializer_list<vk::OwnedBuffer*> owned,
                    const std::function<void(VkCommandBuffer)>& record) {
  try {
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      barrier_before(cmd);
      record(cmd);
      barrier_after(cmd);
    });
  } catch (const Error& e) {
    if (e.code() == Errc::timeout) {
      std::lock_guard lock(ctx.impl().abandoned_mutex);
      for (vk::OwnedBuffer* b : owned) ctx.impl().abandoned_buffers.push_back(std::move(*b));
    }
    throw;
  }
}

// A device-local buffer for temp storage of `req`, or none when req.size is 0.
vk::OwnedBuffer temp_buffer(const Context& ctx, const TempRequirements& req) {
  if (req.size == 0) return {};
  return vk::OwnedBuffer(ctx.physical_device(), ctx.device(), req.size, req.usage, vk::MemoryKind::device_local);
}

BufferView view_or_empty(const vk::OwnedBuffer& b) { return b.handle() ? b.view() : BufferView{}; }

// The local reduce: record_reduce into one host-visible element, read back after the fence.
template <class T>
T local_total(const Context& ctx, const DevicePiece& piece, Op op) {
  ReduceConfig config;
  config.type = data_type_of<T>::value;
  config.op = op;
  const TempRequirements req = reduce_temp_requirements(ctx, piece.count, config);  // validates type and op
  if (piece.count == 0) return cpu::identity<T>(op);
  vk::OwnedBuffer temp = temp_buffer(ctx, req);
  vk::OwnedBuffer result(ctx.physical_device(), ctx.device(), sizeof(T), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         vk::MemoryKind::host_visible);
  submit_holding(ctx, {&temp, &result}, [&](VkCommandBuffer cmd) {
    record_reduce(ctx, cmd, {config, piece.count, piece.input, result.view(), view_or_empty(temp)});
  });
  T total;
  std::memcpy(&total, result.mapped(), sizeof(T));
  return total;
}

bool same_range(const BufferView& a, const BufferView& b) { return a.buffer == b.buffer && a.offset == b.offset; }

}  // namespace

template <Element T>
void scan(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, ScanConfig config) {
  config.type = data_type_of<T>::value;
  detail::distributed_scan<T>(
      comm, config, [&] { return local_total<T>(ctx, piece, config.op); },
      [&](std::optional<T> before) {
        const bool in_place = same_range(piece.input, piece.output);
        const TempRequirements req = scan_temp_requirements(ctx, piece.count, config, in_place);
        if (piece.count == 0) return;
        vk::OwnedBuffer temp = temp_buffer(ctx, req);
        ScanArgs args{config, piece.count, piece.input, piece.output, view_or_empty(temp)};
        if (before) args.initial_bits = element_bits(*before);
        submit_holding(ctx, {&temp}, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, args); });
      });
}

template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, Op op) {
  return detail::distributed_reduce<T>(comm, op, [&] { return local_total<T>(ctx, piece, op); });
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                      \
  template void scan<T>(const Context&, MPI_Comm, const DevicePiece&, ScanConfig); \
  template T reduce<T>(const Context&, MPI_Comm, const DevicePiece&, Op);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
GPUSCAN_MPI_INSTANTIATE(uint64_t)
GPUSCAN_MPI_INSTANTIATE(int64_t)
GPUSCAN_MPI_INSTANTIATE(double)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
