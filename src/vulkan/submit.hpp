// Records a command buffer, submits it to the context's queue and waits: the host-side round trip of
// convenience calls (and of tests that drive the recording API).
#pragma once

#include <functional>
#include <initializer_list>

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

class OwnedBuffer;

// A convenience call's round trip: records `record`, then a barrier that makes compute-shader writes
// visible to the host, submits and waits. On Errc::timeout the GPU may still use `in_use`, so they are
// handed to the Context (freed when it goes) before the error is rethrown.
void submit_for_host(const Context& ctx, std::initializer_list<OwnedBuffer*> in_use,
                     const std::function<void(VkCommandBuffer)>& record);

// Buffer-to-buffer copy followed by a barrier that orders it before `dst_stage` / `dst_access`.
void copy_with_barrier(VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                       VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access);

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

// Between two of gpuscan's own dispatches: shader writes visible to the next dispatch's reads and writes.
inline void compute_barrier(VkCommandBuffer cmd) {
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

}  // namespace gpuscan::vk
