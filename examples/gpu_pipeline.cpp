// A chain of scans on the GPU with no readback in between: y = exclusive_scan(x), then
// z = inclusive_scan(y), both recorded into one command buffer, with one barrier between them and one
// readback at the end. The buffers are the application's own, created on the Context's device.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <vector>

#include "app_vulkan.hpp"

int main() try {
  const gpuscan::Context ctx = gpuscan::Context::create();
  const VkDevice device = ctx.device();
  const uint32_t n = 50000;
  const VkDeviceSize bytes = n * sizeof(uint32_t);
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  app::Buffer x = app::create_buffer(ctx, bytes, storage);
  app::Buffer y = app::create_buffer(ctx, bytes, storage);  // the intermediate: never leaves the GPU
  app::Buffer z = app::create_buffer(ctx, bytes, storage);

  // One temp buffer serves both scans: large enough for either, with the usage of both.
  const gpuscan::ScanConfig exclusive{.kind = gpuscan::ScanKind::exclusive};
  const gpuscan::ScanConfig inclusive{.kind = gpuscan::ScanKind::inclusive};
  const gpuscan::TempRequirements t1 = gpuscan::scan_temp_requirements(ctx, n, exclusive);
  const gpuscan::TempRequirements t2 = gpuscan::scan_temp_requirements(ctx, n, inclusive);
  app::Buffer temp = app::create_buffer(ctx, std::max<VkDeviceSize>({t1.size, t2.size, 4}), t1.usage | t2.usage);

  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i % 5;
  void* mapped;
  app::check(vkMapMemory(device, x.memory, 0, bytes, 0, &mapped), "vkMapMemory");
  std::memcpy(mapped, in.data(), bytes);  // host writes before vkQueueSubmit are visible to the GPU
  vkUnmapMemory(device, x.memory);

  app::submit_once(ctx, [&](VkCommandBuffer cmd) {
    gpuscan::record_scan(ctx, cmd, {.config = exclusive, .count = n, .input = x.view, .output = y.view,
                                    .temp = temp.view});
    // Between the scans: y was written by compute shaders and is read by the next ones; the temp buffer
    // is reused, and a single-pass scan clears it first with vkCmdFillBuffer, so the barrier covers the
    // transfer stage too (docs/scan.md, "The barrier contract").
    app::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    gpuscan::record_scan(ctx, cmd, {.config = inclusive, .count = n, .input = y.view, .output = z.view,
                                    .temp = temp.view});
    // After: the host reads z once the fence has signalled.
    app::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  });
  app::check(vkMapMemory(device, z.memory, 0, bytes, 0, &mapped), "vkMapMemory");

  std::vector<uint32_t> y_cpu(n), z_cpu(n);
  for (uint32_t i = 1; i < n; ++i) y_cpu[i] = y_cpu[i - 1] + in[i - 1];
  for (uint32_t i = 0; i < n; ++i) z_cpu[i] = (i ? z_cpu[i - 1] : 0) + y_cpu[i];
  std::cout << "device: " << ctx.device_info().name << "; algorithm: "
            << gpuscan::to_string(ctx.resolve(exclusive, n)) << '\n'
            << "inclusive(exclusive(x)) result:   " << app::summary(static_cast<const uint32_t*>(mapped), n) << '\n'
            << "inclusive(exclusive(x)) expected: " << app::summary(z_cpu.data(), n) << '\n';

  vkUnmapMemory(device, z.memory);
  for (app::Buffer* b : {&x, &y, &z, &temp}) app::destroy(device, *b);
} catch (const std::exception& e) {
  std::cerr << "gpu_pipeline: " << e.what() << '\n';
  return 1;
}
