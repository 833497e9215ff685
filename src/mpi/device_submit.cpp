#include "mpi/device_submit.hpp"

#include <mutex>

#include "vulkan/context_impl.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::mpi::detail {

void submit_between_barriers(const Context& ctx, std::initializer_list<vk::OwnedBuffer*> owned,
                             const std::function<void(VkCommandBuffer)>& record, SubmitTimes* times) {
  vk::SubmitTimes vk_times;
  try {
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      // Everything earlier on the queue (its writes made available) before gpuscan's compute shaders and
      // transfers (the scan's temp clear, the count copy).
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                             VK_ACCESS_TRANSFER_WRITE_BIT);
      record(cmd);
      // gpuscan's writes before everything later on the queue, and the host.
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                         VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
    }, times ? &vk_times : nullptr);
    if (times) *times = {vk_times.record, vk_times.submit, vk_times.wait, vk_times.gpu};
  } catch (const Error& e) {
    if (e.code() == Errc::timeout) {
      std::lock_guard lock(impl_of(ctx).abandoned_mutex);
      for (vk::OwnedBuffer* b : owned)
        if (b) impl_of(ctx).abandoned_buffers.push_back(std::move(*b));
    }
    throw;
  }
}

std::unique_lock<std::mutex> scratch_lock(const Context& ctx) { return std::unique_lock(impl_of(ctx).scratch_mutex); }

vk::OwnedBuffer& scratch(const Context& ctx, VkDeviceSize bytes, bool host_visible) {
  // Every usage a device-piece call's temp or result can need, so one buffer serves them all.
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  vk::OwnedBuffer& b = host_visible ? impl_of(ctx).scratch_host : impl_of(ctx).scratch_device;
  if (!b.handle() || b.view().buffer_size < bytes)
    b = vk::OwnedBuffer(ctx, std::max<VkDeviceSize>(bytes, 256), usage,
                        host_visible ? vk::MemoryKind::host_visible : vk::MemoryKind::device_local);
  return b;
}

}  // namespace gpuscan::mpi::detail
