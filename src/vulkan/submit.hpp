// Records a command buffer, submits it to the context's queue and waits: the host-side round trip of
// convenience calls (and of tests that drive the recording API).
#pragma once

#include <functional>

#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

// Where one submit_and_wait's time went, in milliseconds: host steady_clock around the recording, the
// vkQueueSubmit (queue lock included) and the wait for the fence; gpu is between timestamps written at
// the start and the end of the command buffer (0 where the queue has no timestamps).
struct SubmitTimes {
  double record = 0, submit = 0, wait = 0, gpu = 0;
};

// The command pool, command buffer and fence (and, once timed, a query pool) come from the Context's
// idle set (Context::Impl::submit_slots) and go back to it, so repeated calls create nothing. With
// `times`, fills it (and records two timestamps around `record`'s commands).
void submit_and_wait(const Context& ctx, const std::function<void(VkCommandBuffer)>& record,
                     SubmitTimes* times = nullptr);

// Buffer-to-buffer copy followed by a barrier that orders it before `dst_stage` / `dst_access`.
void copy_with_barrier(const Context& ctx, VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                       VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access);

void memory_barrier(const Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                    VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

// Compute-shader writes before it visible to compute-shader reads and writes after it; nothing where cmd
// is VK_NULL_HANDLE (the prepare_* walks).
void compute_barrier(const Context& ctx, VkCommandBuffer cmd);

}  // namespace gpuscan::vk
