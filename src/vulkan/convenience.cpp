// The Context's submissions (command buffers from an idle set, fences, the timeout) and the convenience
// calls on host data, which are one-shot plans (gpuscan/vulkan/plan.hpp) run through vulkan/host_run.cpp.
#include <chrono>
#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "core/host_run.hpp"
#include "core/plan_checks.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/reduce.hpp"
#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan {
namespace vk {

void memory_barrier(const Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                    VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  const VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, src_access, dst_access};
  impl_of(ctx).fn.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void compute_barrier(const Context& ctx, VkCommandBuffer cmd) {
  if (cmd == VK_NULL_HANDLE) return;
  memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void copy_with_barrier(const Context& ctx, VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                       VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access) {
  memory_barrier(ctx, cmd, src_stage, src_access, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  const VkBufferCopy region{0, 0, bytes};
  impl_of(ctx).fn.vkCmdCopyBuffer(cmd, src, dst, 1, &region);
  memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, dst_stage, dst_access);
}

namespace {

using Slot = Context::Impl::SubmitSlot;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void destroy_slot(const Functions& fn, VkDevice device, const Slot& slot) {
  if (slot.fence) fn.vkDestroyFence(device, slot.fence, nullptr);
  if (slot.pool) fn.vkDestroyCommandPool(device, slot.pool, nullptr);
  if (slot.timestamps) fn.vkDestroyQueryPool(device, slot.timestamps, nullptr);
}

// An idle slot of the Context's (reset), or a new one; with `timed`, with its timestamp query pool.
Slot take_slot(const Context& ctx, bool timed) {
  Context::Impl& impl = impl_of(ctx);
  const Functions& fn = impl.fn;
  const VkDevice device = ctx.device();
  Slot slot;
  {
    std::lock_guard lock(impl.submit_slots_mutex);
    if (!impl.submit_slots.empty()) {
      slot = impl.submit_slots.back();
      impl.submit_slots.pop_back();
    }
  }
  if (slot.pool) {
    try {
      check(fn.vkResetCommandPool(device, slot.pool, 0), "vkResetCommandPool");
      check(fn.vkResetFences(device, 1, &slot.fence), "vkResetFences");
    } catch (...) {
      destroy_slot(fn, device, slot);
      throw;
    }
  } else {
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool_info.queueFamilyIndex = ctx.queue_family_index();
    check(fn.vkCreateCommandPool(device, &pool_info, nullptr, &slot.pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = slot.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    try {
      check(fn.vkAllocateCommandBuffers(device, &alloc, &slot.cmd), "vkAllocateCommandBuffers");
      check(fn.vkCreateFence(device, &fence_info, nullptr, &slot.fence), "vkCreateFence");
    } catch (...) {
      destroy_slot(fn, device, slot);
      throw;
    }
  }
  if (timed && !slot.timestamps) {
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = 2;
    if (fn.vkCreateQueryPool(device, &q, nullptr, &slot.timestamps) != VK_SUCCESS) slot.timestamps = VK_NULL_HANDLE;
  }
  return slot;
}

}  // namespace

void submit_and_wait(const Context& ctx, const std::function<void(VkCommandBuffer)>& record, SubmitTimes* times) {
  const VkDevice device = ctx.device();
  Context::Impl& impl = impl_of(ctx);
  const Functions& fn = impl.fn;
  const bool timed = times && ctx.device_info().timestamp_period_ns > 0;
  auto t0 = std::chrono::steady_clock::now();
  Slot slot = take_slot(ctx, timed);
  const bool stamped = timed && slot.timestamps;
  try {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(fn.vkBeginCommandBuffer(slot.cmd, &begin), "vkBeginCommandBuffer");
    if (stamped) {
      fn.vkCmdResetQueryPool(slot.cmd, slot.timestamps, 0, 2);
      fn.vkCmdWriteTimestamp(slot.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, slot.timestamps, 0);
    }
    record(slot.cmd);
    if (stamped) fn.vkCmdWriteTimestamp(slot.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, slot.timestamps, 1);
    check(fn.vkEndCommandBuffer(slot.cmd), "vkEndCommandBuffer");
    if (times) times->record = ms_since(t0);

    t0 = std::chrono::steady_clock::now();
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &slot.cmd;
    {
      std::lock_guard lock(impl.queue_mutex);
      check(fn.vkQueueSubmit(ctx.queue(), 1, &submit, slot.fence), "vkQueueSubmit");
    }
    if (times) times->submit = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    // Poll for up to 2 ms (ContextCreateInfo::fence_poll_us) before blocking: a blocking wait can add
    // about a millisecond of wake-up latency on some drivers, as much as a short scan takes on the GPU.
    VkResult waited = VK_NOT_READY;
    const auto poll_end = std::chrono::steady_clock::now() + impl.fence_poll;
    // Yielding between polls gives the core to any thread of the driver's that shares it (an MPI rank
    // is often bound to one core).
    while ((waited = fn.vkGetFenceStatus(device, slot.fence)) == VK_NOT_READY && std::chrono::steady_clock::now() < poll_end)
      std::this_thread::yield();
    if (waited == VK_NOT_READY) waited = fn.vkWaitForFences(device, 1, &slot.fence, VK_TRUE, impl.timeout_ns);
    if (times) times->wait = ms_since(t0);
    if (waited == VK_TIMEOUT) {
      // The GPU may still be running this submission: its fence and pool live until the Context goes.
      {
        std::lock_guard lock(impl.abandoned_mutex);
        impl.abandoned.emplace_back(slot.pool, slot.fence);
        if (slot.timestamps) impl.abandoned_queries.push_back(slot.timestamps);
      }
      slot = {};
      throw VulkanError(Errc::timeout,
                        "the GPU did not finish a submission within " + std::to_string(impl.timeout_ns / 1'000'000) +
                            " ms (a hang or a device lost); destroy this Context",
                        waited);
    }
    check(waited, "vkWaitForFences");
    if (stamped) {
      uint64_t stamps[2] = {0, 0};
      check(fn.vkGetQueryPoolResults(device, slot.timestamps, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
            "vkGetQueryPoolResults");
      times->gpu = static_cast<double>(stamps[1] - stamps[0]) * ctx.device_info().timestamp_period_ns * 1e-6;
    }
  } catch (...) {
    destroy_slot(fn, device, slot);  // a failed slot is not reused (its command buffer may be mid-recording)
    throw;
  }
  std::lock_guard lock(impl.submit_slots_mutex);
  impl.submit_slots.push_back(slot);
}

}  // namespace vk

// The untyped calls are one-shot plans run on host data (gpuscan/vulkan/plan.hpp), their kernels built as
// the run needs them.
std::vector<std::byte> scan_bytes(const Context& ctx, std::span<const std::byte> input, const ScanConfig& config,
                                  double* gpu_ns, std::optional<uint64_t> initial_bits) {
  const uint32_t esize = config.custom_op ? compile_custom_op(ctx, *config.custom_op) : element_size(config.type);
  const uint64_t count = core::scan_elements(input.size(), config, esize);
  return Plan(ctx, primitive::Scan{config}, core::one_call(count))
      .run({.values = input, .initial_bits = initial_bits}, gpu_ns);
}

std::vector<std::byte> reduce_bytes(const Context& ctx, std::span<const std::byte> input, const ReduceConfig& config) {
  const uint64_t count = core::whole_elements(input.size(), config.type, "the input");
  return Plan(ctx, primitive::Reduce{config}, core::one_call(count)).run({.values = input});
}

namespace {
template <Element T>
std::vector<T> scan_typed(const Context& ctx, std::span<const T> input, ScanConfig config,
                          std::optional<uint64_t> initial_bits) {
  // A custom operator's elements must be T's size (checked there); with a carry-in, record_scan refuses it.
  if (config.custom_op && !initial_bits) return custom_scan(ctx, input, config);
  config.type = data_type_of<T>::value;
  const std::vector<std::byte> bytes = scan_bytes(ctx, std::as_bytes(input), config, nullptr, initial_bits);
  std::vector<T> out(input.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}
}  // namespace

template <Element T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config) {
  return scan_typed(ctx, input, config, std::nullopt);
}

template <Element T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config, T initial) {
  return scan_typed(ctx, input, config, element_bits(initial));
}

template std::vector<uint32_t> scan(const Context&, std::span<const uint32_t>, ScanConfig);
template std::vector<uint32_t> scan(const Context&, std::span<const uint32_t>, ScanConfig, uint32_t);
template std::vector<int32_t> scan(const Context&, std::span<const int32_t>, ScanConfig);
template std::vector<int32_t> scan(const Context&, std::span<const int32_t>, ScanConfig, int32_t);
template std::vector<float> scan(const Context&, std::span<const float>, ScanConfig);
template std::vector<float> scan(const Context&, std::span<const float>, ScanConfig, float);
template std::vector<uint64_t> scan(const Context&, std::span<const uint64_t>, ScanConfig);
template std::vector<uint64_t> scan(const Context&, std::span<const uint64_t>, ScanConfig, uint64_t);
template std::vector<int64_t> scan(const Context&, std::span<const int64_t>, ScanConfig);
template std::vector<int64_t> scan(const Context&, std::span<const int64_t>, ScanConfig, int64_t);
template std::vector<double> scan(const Context&, std::span<const double>, ScanConfig);
template std::vector<double> scan(const Context&, std::span<const double>, ScanConfig, double);

template <Element T>
T reduce(const Context& ctx, std::span<const T> input, ReduceConfig config) {
  config.type = data_type_of<T>::value;
  const std::vector<std::byte> bytes = reduce_bytes(ctx, std::as_bytes(input), config);
  T result;
  std::memcpy(&result, bytes.data(), sizeof result);
  return result;
}

template uint32_t reduce(const Context&, std::span<const uint32_t>, ReduceConfig);
template int32_t reduce(const Context&, std::span<const int32_t>, ReduceConfig);
template float reduce(const Context&, std::span<const float>, ReduceConfig);
template uint64_t reduce(const Context&, std::span<const uint64_t>, ReduceConfig);
template int64_t reduce(const Context&, std::span<const int64_t>, ReduceConfig);
template double reduce(const Context&, std::span<const double>, ReduceConfig);

}  // namespace gpuscan
