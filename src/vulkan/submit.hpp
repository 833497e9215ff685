// Records a command buffer, submits it to the context's queue and waits: the host-side round trip of
// convenience calls (and of tests that drive the recording API).
#pragma once

#include <functional>

#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

void submit_and_wait(const Context& ctx, const std::function<void(VkCommandBuffer)>& record);

// Buffer-to-buffer copy followed by a barrier that orders it before `dst_stage` / `dst_access`.
void copy_with_barrier(VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                       VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access);

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

}  // namespace gpuscan::vk
