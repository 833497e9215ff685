// A chain of scans on the GPU with no readback in between: y = exclusive_scan(x), then
// z = inclusive_scan(y), both recorded into one command buffer, with one barrier between them and one
// readback at the end. The buffers are the application's own, created on the Context's device.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpuscan/gpuscan.hpp>

namespace {

void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw std::runtime_error(std::string(call) + ": " + gpuscan::vk_result_name(result));
}

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  gpuscan::BufferView view;  // the whole buffer, as gpuscan sees it
};

// Host-visible, coherent memory keeps the example short; a real application would keep the data in
// device-local memory and stage it.
Buffer create_buffer(const gpuscan::Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage) {
  Buffer b;
  b.view = {VK_NULL_HANDLE, size, usage, 0};
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  check(vkCreateBuffer(ctx.device(), &bi, nullptr, &b.buffer), "vkCreateBuffer");
  b.view.buffer = b.buffer;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device(), b.buffer, &req);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(ctx.physical_device(), &memory);
  const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = 0;
  while (type < memory.memoryTypeCount &&
         !((req.memoryTypeBits >> type & 1) && (memory.memoryTypes[type].propertyFlags & wanted) == wanted))
    ++type;
  if (type == memory.memoryTypeCount) throw std::runtime_error("no host-visible memory type");
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  check(vkAllocateMemory(ctx.device(), &ai, nullptr, &b.memory), "vkAllocateMemory");
  check(vkBindBufferMemory(ctx.device(), b.buffer, b.memory, 0), "vkBindBufferMemory");
  return b;
}

void barrier(VkCommandBuffer cmd, VkPipelineStageFlags from_stage, VkAccessFlags from_access,
             VkPipelineStageFlags to_stage, VkAccessFlags to_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, from_access, to_access};
  vkCmdPipelineBarrier(cmd, from_stage, to_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

// The first values, the last, and a hash of them all: enough to compare two long results on one line.
std::string summary(const uint32_t* v, size_t n) {
  std::ostringstream s;
  for (size_t i = 0; i < 6; ++i) s << v[i] << ' ';
  uint64_t hash = 14695981039346656037u;  // FNV-1a over the values
  for (size_t i = 0; i < n; ++i) hash = (hash ^ v[i]) * 1099511628211u;
  s << "... " << v[n - 1] << " (" << n << " values, hash " << std::hex << hash << ')';
  return s.str();
}

}  // namespace

int main() try {
  const gpuscan::Context ctx = gpuscan::Context::create();
  const VkDevice device = ctx.device();
  const uint32_t n = 50000;
  const VkDeviceSize bytes = n * sizeof(uint32_t);
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  Buffer x = create_buffer(ctx, bytes, storage);
  Buffer y = create_buffer(ctx, bytes, storage);  // the intermediate: never leaves the GPU
  Buffer z = create_buffer(ctx, bytes, storage);

  // One temp buffer serves both scans: large enough for either, with the usage of both.
  const gpuscan::ScanConfig exclusive{.kind = gpuscan::ScanKind::exclusive};
  const gpuscan::ScanConfig inclusive{.kind = gpuscan::ScanKind::inclusive};
  const gpuscan::TempRequirements t1 = gpuscan::scan_temp_requirements(ctx, n, exclusive);
  const gpuscan::TempRequirements t2 = gpuscan::scan_temp_requirements(ctx, n, inclusive);
  Buffer temp = create_buffer(ctx, std::max<VkDeviceSize>({t1.size, t2.size, 4}), t1.usage | t2.usage);

  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i % 5;
  void* mapped;
  check(vkMapMemory(device, x.memory, 0, bytes, 0, &mapped), "vkMapMemory");
  std::memcpy(mapped, in.data(), bytes);  // host writes before vkQueueSubmit are visible to the GPU
  vkUnmapMemory(device, x.memory);

  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = ctx.queue_family_index();
  VkCommandPool pool;
  check(vkCreateCommandPool(device, &pi, nullptr, &pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                 VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(device, &ai, &cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");

  gpuscan::record_scan(ctx, cmd, {.config = exclusive, .count = n, .input = x.view, .output = y.view,
                                  .temp = temp.view});
  // Between the scans: y was written by compute shaders and is read by the next ones; the temp buffer
  // is reused, and a single-pass scan clears it first with vkCmdFillBuffer, so the barrier covers the
  // transfer stage too (docs/scan.md, "The barrier contract").
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  gpuscan::record_scan(ctx, cmd, {.config = inclusive, .count = n, .input = y.view, .output = z.view,
                                  .temp = temp.view});
  // After: the host reads z once the fence has signalled.
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  check(vkCreateFence(device, &fi, nullptr, &fence), "vkCreateFence");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  check(vkQueueSubmit(ctx.queue(), 1, &si, fence), "vkQueueSubmit");  // no gpuscan call submits meanwhile
  check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  check(vkMapMemory(device, z.memory, 0, bytes, 0, &mapped), "vkMapMemory");

  std::vector<uint32_t> y_cpu(n), z_cpu(n);
  for (uint32_t i = 1; i < n; ++i) y_cpu[i] = y_cpu[i - 1] + in[i - 1];
  for (uint32_t i = 0; i < n; ++i) z_cpu[i] = (i ? z_cpu[i - 1] : 0) + y_cpu[i];
  std::cout << "device: " << ctx.device_info().name << "; algorithm: "
            << gpuscan::to_string(ctx.resolve(exclusive, n)) << '\n'
            << "inclusive(exclusive(x)) result:   " << summary(static_cast<const uint32_t*>(mapped), n) << '\n'
            << "inclusive(exclusive(x)) expected: " << summary(z_cpu.data(), n) << '\n';

  vkUnmapMemory(device, z.memory);
  vkDestroyFence(device, fence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  for (Buffer* b : {&x, &y, &z, &temp}) {
    vkDestroyBuffer(device, b->buffer, nullptr);
    vkFreeMemory(device, b->memory, nullptr);
  }
} catch (const std::exception& e) {
  std::cerr << "gpu_pipeline: " << e.what() << '\n';
  return 1;
}
