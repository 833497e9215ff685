// An application that owns its Vulkan objects. It creates the instance, device, queue, buffers and
// command buffer itself, hands the first three to gpuscan (Context::adopt), records gpuscan::record_scan
// into its own command buffer between its own barriers (the contract in docs/scan.md), submits, and
// reads the result back. Error handling is kept short: a failed call throws and the program exits.
#include <cstdint>
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
  VkDeviceSize size = 0;
  VkBufferUsageFlags usage = 0;
};

Buffer create_buffer(VkPhysicalDevice physical, VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage,
                     VkMemoryPropertyFlags properties) {
  Buffer b{.size = size, .usage = usage};
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  check(vkCreateBuffer(device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
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

void destroy(VkDevice device, Buffer& b) {
  vkDestroyBuffer(device, b.buffer, nullptr);
  vkFreeMemory(device, b.memory, nullptr);
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
  // 1. The application's instance and device (validation: set VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation).
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "adopt_device";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  VkInstance instance;
  check(vkCreateInstance(&ii, nullptr, &instance), "vkCreateInstance");
  uint32_t count = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  vkEnumeratePhysicalDevices(instance, &count, &physical);  // VK_INCOMPLETE with several devices: take the first
  if (count == 0) throw std::runtime_error("no Vulkan device");
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families.data());
  uint32_t family = 0;
  while (family < family_count && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  if (family == family_count) throw std::runtime_error("no compute queue");

  // Enable what the single-pass scan needs where the device has it (Vulkan 1.2 features).
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(physical, &properties);
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  const bool vulkan12 = properties.apiVersion >= VK_API_VERSION_1_2;
  if (vulkan12) vkGetPhysicalDeviceFeatures2(physical, &supported);
  const bool single_pass = vulkan12 && supported.features.shaderInt64 && f12.shaderBufferInt64Atomics;
  VkPhysicalDeviceVulkan12Features enable12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &enable12};
  enable.features.shaderInt64 = enable12.shaderBufferInt64Atomics = single_pass ? VK_TRUE : VK_FALSE;

  const float priority = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  const std::vector<const char*> extensions = gpuscan::Context::required_device_extensions();
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = vulkan12 ? &enable : nullptr;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  di.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  di.ppEnabledExtensionNames = extensions.data();
  VkDevice device;
  check(vkCreateDevice(physical, &di, nullptr, &device), "vkCreateDevice");
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  {
    // 2. gpuscan adopts them. It destroys none of them; the Context must go before the device.
    const gpuscan::Context ctx = gpuscan::Context::adopt({.instance = instance,
                                                          .physical_device = physical,
                                                          .device = device,
                                                          .queue = queue,
                                                          .queue_family_index = family,
                                                          .single_pass_features_enabled = single_pass});

    // 3. The application's buffers: input, output, gpuscan's temp, and a host-visible one to read back.
    const uint32_t n = 10000;  // more than one tile, so the scan takes several workgroups
    std::vector<uint32_t> in(n);
    for (uint32_t i = 0; i < n; ++i) in[i] = (i * 7 + 3) % 10;
    const VkDeviceSize bytes = n * sizeof(uint32_t);
    const gpuscan::ScanConfig config;  // u32, exclusive, Algorithm::automatic
    const gpuscan::TempRequirements req = gpuscan::scan_temp_requirements(ctx, n, config);
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    Buffer input = create_buffer(physical, device, bytes,
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, local);
    Buffer output = create_buffer(physical, device, bytes,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, local);
    Buffer temp;  // req.size == 0: no temp needed, the view stays empty
    if (req.size > 0) temp = create_buffer(physical, device, req.size, req.usage, local);
    Buffer readback = create_buffer(physical, device, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);

    // 4. The application's command buffer: upload, barrier, scan, barrier, copy, barrier.
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.queueFamilyIndex = family;
    VkCommandPool pool;
    check(vkCreateCommandPool(device, &pi, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    check(vkAllocateCommandBuffers(device, &ai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");

    vkCmdUpdateBuffer(cmd, input.buffer, 0, bytes, in.data());  // up to 64 KiB; larger data: a staging copy
    // Before: the input's writes visible to compute-shader reads.
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
    gpuscan::record_scan(ctx, cmd,
                         {.config = config,
                          .count = n,
                          .input = {input.buffer, input.size, input.usage, 0},
                          .output = {output.buffer, output.size, output.usage, 0},
                          .temp = {temp.buffer, temp.size, temp.usage, 0}});
    // After: the results were written at COMPUTE_SHADER / SHADER_WRITE; the consumer here is a copy.
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, output.buffer, readback.buffer, 1, &region);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

    // 5. Submit on the application's queue, wait, read back.
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    check(vkCreateFence(device, &fi, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
    check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    void* mapped;
    check(vkMapMemory(device, readback.memory, 0, bytes, 0, &mapped), "vkMapMemory");

    std::vector<uint32_t> expected(n);
    for (uint32_t i = 1; i < n; ++i) expected[i] = expected[i - 1] + in[i - 1];
    std::cout << "device: " << ctx.device_info().name << "; algorithm: "
              << gpuscan::to_string(ctx.resolve(config, n)) << '\n'
              << "exclusive result:   " << summary(static_cast<const uint32_t*>(mapped), n) << '\n'
              << "exclusive expected: " << summary(expected.data(), n) << '\n';

    vkUnmapMemory(device, readback.memory);
    vkDestroyFence(device, fence, nullptr);
    vkDestroyCommandPool(device, pool, nullptr);
    for (Buffer* b : {&input, &output, &temp, &readback}) destroy(device, *b);
  }  // the Context goes here, after the GPU has finished with its pipelines
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
} catch (const std::exception& e) {
  std::cerr << "adopt_device: " << e.what() << '\n';
  return 1;
}
