// Plans on host data: one round trip for every primitive (core/host_run.hpp says what each one uploads and
// downloads). Every buffer is device-local and filled through one staging buffer, so that the primitive's
// own passes run on the memory a caller's would (and gpu_ns times them there).
#include "vulkan/host_run.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::vk {

namespace {

constexpr VkDeviceSize round16(VkDeviceSize v) { return (v + 15) & ~VkDeviceSize{15}; }

// Two timestamps around the primitive's commands, where the queue has them.
class Stopwatch {
 public:
  Stopwatch(const Context& ctx, bool wanted) : ctx_(ctx) {
    if (!wanted || ctx.device_info().timestamp_period_ns <= 0) return;
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = 2;
    check(impl_of(ctx).fn.vkCreateQueryPool(ctx.device(), &q, nullptr, &pool_), "vkCreateQueryPool");
  }
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;
  ~Stopwatch() {
    if (pool_) impl_of(ctx_).fn.vkDestroyQueryPool(ctx_.device(), pool_, nullptr);
  }
  void start(VkCommandBuffer cmd) const {
    if (!pool_) return;
    impl_of(ctx_).fn.vkCmdResetQueryPool(cmd, pool_, 0, 2);
    impl_of(ctx_).fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool_, 0);
  }
  void stop(VkCommandBuffer cmd) const {
    if (pool_) impl_of(ctx_).fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, 1);
  }
  double ns() const {
    if (!pool_) return 0;
    uint64_t stamps[2] = {0, 0};
    check(impl_of(ctx_).fn.vkGetQueryPoolResults(ctx_.device(), pool_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    return static_cast<double>(stamps[1] - stamps[0]) * ctx_.device_info().timestamp_period_ns;
  }
  // After a timeout the GPU may still write the pool: the Context frees it when it goes.
  void abandon() {
    if (!pool_) return;
    std::lock_guard lock(impl_of(ctx_).abandoned_mutex);
    impl_of(ctx_).abandoned_queries.push_back(pool_);
    pool_ = VK_NULL_HANDLE;
  }

 private:
  const Context& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
};

}  // namespace

core::Downloads run_on_host(const Context& ctx, const core::HostRun& run, const TempRequirements& temp,
                            const HostRecord& record, double* gpu_ns) {
  const Functions& fn = impl_of(ctx).fn;
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT | impl_of(ctx).address_usage();
  const size_t count = run.buffers.size();
  std::vector<OwnedBuffer> owned(count + 2);  // the run's buffers, temp, staging
  std::vector<BufferView> views(count);
  std::vector<VkDeviceSize> at(count, 0);  // each buffer's place in staging
  VkDeviceSize staging_bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const core::HostBuffer& b = run.buffers[i];
    if (b.bytes == 0) continue;
    owned[i] = OwnedBuffer(ctx, b.bytes, usage, MemoryKind::device_local);
    views[i] = owned[i].view();
    at[i] = staging_bytes;
    staging_bytes += round16(b.bytes);
  }
  OwnedBuffer& temp_buffer = owned[count];
  temp_buffer = OwnedBuffer(ctx, std::max<VkDeviceSize>(temp.size, 4),
                            usage | temp.usage, MemoryKind::device_local);
  OwnedBuffer& staging = owned[count + 1];
  staging = OwnedBuffer(ctx, std::max<VkDeviceSize>(staging_bytes, 4),
                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryKind::host_readback);
  auto* mapped = static_cast<std::byte*>(staging.mapped());
  std::memset(mapped, 0, staging_bytes);
  for (size_t i = 0; i < count; ++i)
    if (!run.buffers[i].upload.empty())
      std::memcpy(mapped + at[i], run.buffers[i].upload.data(),
                  std::min<size_t>(run.buffers[i].upload.size(), run.buffers[i].bytes));

  Stopwatch stopwatch(ctx, gpu_ns != nullptr);
  try {
    submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT);
      for (size_t i = 0; i < count; ++i) {
        if (run.buffers[i].bytes == 0) continue;
        const VkBufferCopy region{at[i], 0, run.buffers[i].bytes};
        fn.vkCmdCopyBuffer(cmd, staging.handle(), owned[i].handle(), 1, &region);
      }
      constexpr VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
      constexpr VkAccessFlags any = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
      memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     work | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, any | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
      stopwatch.start(cmd);
      record(cmd, views, temp_buffer.view());
      stopwatch.stop(cmd);
      memory_barrier(ctx, cmd, work, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      for (size_t i = 0; i < count; ++i) {
        if (!run.buffers[i].download || run.buffers[i].bytes == 0) continue;
        const VkBufferCopy region{0, at[i], run.buffers[i].bytes};
        fn.vkCmdCopyBuffer(cmd, owned[i].handle(), staging.handle(), 1, &region);
      }
      memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                     VK_ACCESS_HOST_READ_BIT);
    });
  } catch (const Error& e) {
    if (e.code() == Errc::timeout) {  // the GPU may still use them: keep them until the Context goes
      stopwatch.abandon();
      std::lock_guard lock(impl_of(ctx).abandoned_mutex);
      for (OwnedBuffer& b : owned) impl_of(ctx).abandoned_buffers.push_back(std::move(b));
    }
    throw;
  }
  if (gpu_ns) *gpu_ns = stopwatch.ns();
  core::Downloads downloads(count);
  for (size_t i = 0; i < count; ++i)
    if (run.buffers[i].download)
      downloads[i].assign(mapped + at[i], mapped + at[i] + run.buffers[i].bytes);
  return downloads;
}

}  // namespace gpuscan::vk
