// An application that owns its Vulkan objects. It creates the instance, device, queue, buffers and
// command buffer itself, hands the first three to gpuscan (Context::adopt), records gpuscan::record_scan
// into its own command buffer between its own barriers (the contract in docs/scan.md), submits, and
// reads the result back. Error handling is kept short: a failed call throws and the program exits.
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "app_vulkan.hpp"

using app::Buffer;
using app::barrier;
using app::check;
using app::create_buffer;
using app::destroy;
using app::summary;

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

  // What gpuscan would enable on this device, each feature where the device has it (64-bit types, the
  // single-pass scan's atomics, device addresses, full subgroups, the reconvergence guarantee): the
  // application enables it too, beside its own.
  const gpuscan::DeviceRequirements need(instance, physical);

  const float priority = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  const std::vector<const char*> extensions(need.extensions().begin(), need.extensions().end());
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = need.features();  // a VkPhysicalDeviceFeatures2 chain, owned by `need`
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
    gpuscan::AdoptInfo adopt{.instance = instance,
                             .physical_device = physical,
                             .device = device,
                             .queue = queue,
                             .queue_family_index = family};
    need.apply(adopt);  // the *_enabled flags: what the device was created with
    const gpuscan::Context ctx = gpuscan::Context::adopt(adopt);

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

    // 4. The application's command buffer, on its own queue: upload, barrier, scan, barrier, copy, barrier.
    app::submit_once(device, queue, family, [&](VkCommandBuffer cmd) {
      vkCmdUpdateBuffer(cmd, input.buffer, 0, bytes, in.data());  // up to 64 KiB; larger data: a staging copy
      // Before: the input's writes visible to compute-shader reads.
      barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_ACCESS_SHADER_READ_BIT);
      gpuscan::record_scan(ctx, cmd,
                           {.config = config,
                            .count = n,
                            .input = input.view,
                            .output = output.view,
                            .temp = temp.view});
      // After: the results were written at COMPUTE_SHADER / SHADER_WRITE; the consumer here is a copy.
      barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_READ_BIT);
      const VkBufferCopy region{0, 0, bytes};
      vkCmdCopyBuffer(cmd, output.buffer, readback.buffer, 1, &region);
      barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
              VK_ACCESS_HOST_READ_BIT);
    });

    // 5. Read back.
    void* mapped;
    check(vkMapMemory(device, readback.memory, 0, bytes, 0, &mapped), "vkMapMemory");

    std::vector<uint32_t> expected(n);
    for (uint32_t i = 1; i < n; ++i) expected[i] = expected[i - 1] + in[i - 1];
    std::cout << "device: " << ctx.device_info().name << "; algorithm: "
              << gpuscan::to_string(ctx.resolve(config, n)) << '\n'
              << "exclusive result:   " << summary(static_cast<const uint32_t*>(mapped), n) << '\n'
              << "exclusive expected: " << summary(expected.data(), n) << '\n';

    vkUnmapMemory(device, readback.memory);
    for (Buffer* b : {&input, &output, &temp, &readback}) destroy(device, *b);
  }  // the Context goes here, after the GPU has finished with its pipelines
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
} catch (const std::exception& e) {
  std::cerr << "adopt_device: " << e.what() << '\n';
  return 1;
}
