// The application side of the examples that record gpuscan into their own command buffers: what any
// Vulkan program already has (buffers with memory, a barrier helper, a one-time command buffer) and a
// one-line summary of a long result. Kept apart so each example shows only its use of gpuscan.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gpuscan/gpuscan.hpp>

namespace app {

inline void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw std::runtime_error(std::string(call) + ": " + gpuscan::vk_result_name(result));
}

// One VkBuffer with its own memory. `view` is the whole buffer as gpuscan sees it.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  gpuscan::BufferView view;
};

// A real application would keep data in device-local memory and stage it; host-visible, coherent
// memory keeps the examples short (pass `properties` to choose).
inline Buffer create_buffer(VkPhysicalDevice physical, VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkMemoryPropertyFlags properties = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) {
  Buffer b;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  check(vkCreateBuffer(device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  b.view = {b.buffer, size, usage, 0};
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  uint32_t type = 0;
  while (type < memory.memoryTypeCount && !((req.memoryTypeBits >> type & 1) &&
                                            (memory.memoryTypes[type].propertyFlags & properties) == properties))
    ++type;
  if (type == memory.memoryTypeCount) throw std::runtime_error("no suitable memory type");
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  check(vkAllocateMemory(device, &ai, nullptr, &b.memory), "vkAllocateMemory");
  check(vkBindBufferMemory(device, b.buffer, b.memory, 0), "vkBindBufferMemory");
  return b;
}

inline Buffer create_buffer(const gpuscan::Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage) {
  return create_buffer(ctx.physical_device(), ctx.device(), size, usage);
}

inline void destroy(VkDevice device, Buffer& b) {
  vkDestroyBuffer(device, b.buffer, nullptr);
  vkFreeMemory(device, b.memory, nullptr);
  b = {};
}

inline void barrier(VkCommandBuffer cmd, VkPipelineStageFlags from_stage, VkAccessFlags from_access,
                    VkPipelineStageFlags to_stage, VkAccessFlags to_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, from_access, to_access};
  vkCmdPipelineBarrier(cmd, from_stage, to_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

// Records `record` into a fresh one-time command buffer, submits it to `queue` and waits for it.
inline void submit_once(VkDevice device, VkQueue queue, uint32_t queue_family,
                        const std::function<void(VkCommandBuffer)>& record) {
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = queue_family;
  VkCommandPool pool;
  check(vkCreateCommandPool(device, &pi, nullptr, &pool), "vkCreateCommandPool");
  VkFence fence = VK_NULL_HANDLE;
  try {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                   VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cmd;
    check(vkAllocateCommandBuffers(device, &ai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    record(cmd);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(device, &fi, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
    check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  } catch (...) {
    vkDeviceWaitIdle(device);
    if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
    vkDestroyCommandPool(device, pool, nullptr);
    throw;
  }
  vkDestroyFence(device, fence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
}

inline void submit_once(const gpuscan::Context& ctx, const std::function<void(VkCommandBuffer)>& record) {
  submit_once(ctx.device(), ctx.queue(), ctx.queue_family_index(), record);
}

// The first values, the last, and a hash of them all: enough to compare two long results on one line.
inline std::string summary(const uint32_t* v, size_t n) {
  std::ostringstream s;
  for (size_t i = 0; i < 6 && i < n; ++i) s << v[i] << ' ';
  uint64_t hash = 14695981039346656037u;  // FNV-1a over the values
  for (size_t i = 0; i < n; ++i) hash = (hash ^ v[i]) * 1099511628211u;
  if (n > 0) s << "... " << v[n - 1];
  s << " (" << n << " values, hash " << std::hex << hash << ')';
  return s.str();
}

}  // namespace app
