// Plans in a frame loop: a renderer sorts its particles back to front every frame (depth keys, particle
// ids as values), with a different number of live particles each time. One gpuscan::Plan is made at load
// time for the most particles there can be; every pipeline is built then, so the frames record the sort
// into the application's own command buffers and build nothing (Context::pipeline_count stays put).
// The host reads each frame's result only to check it. docs/plans.md is the guide.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <numeric>
#include <vector>

#include "app_vulkan.hpp"

int main() try {
  const gpuscan::Context ctx = gpuscan::Context::create();
  const VkDevice device = ctx.device();
  constexpr uint32_t max_particles = 50000;

  // Load time: the plan, its temp buffer and the particle buffers, each sized for max_particles.
  const gpuscan::Plan sort(ctx,
                           gpuscan::primitive::Sort{.config = {.key_type = gpuscan::DataType::f32,
                                                               .value_bytes = 4,
                                                               .descending = true}},  // far first
                           {.max_count = max_particles});
  const gpuscan::TempRequirements req = sort.temp_requirements();
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  const VkDeviceSize bytes = max_particles * sizeof(uint32_t);
  app::Buffer depths = app::create_buffer(ctx, bytes, storage), ids = app::create_buffer(ctx, bytes, storage);
  app::Buffer sorted_depths = app::create_buffer(ctx, bytes, storage);
  app::Buffer sorted_ids = app::create_buffer(ctx, bytes, storage);
  app::Buffer temp = app::create_buffer(ctx, std::max<VkDeviceSize>(req.size, 4), storage | req.usage);
  const size_t pipelines_at_load = ctx.pipeline_count();

  size_t frames_in_order = 0;
  const uint32_t live_per_frame[] = {max_particles, 1234, 31337};
  for (const uint32_t live : live_per_frame) {
    // The particles this frame: depths in [0, 100) with ties, ids 0..live-1.
    std::vector<float> depth(live);
    std::vector<uint32_t> id(live);
    for (uint32_t i = 0; i < live; ++i) {
      depth[i] = static_cast<float>((i * 2654435761u >> 8) % 4000) / 40.0f;
      id[i] = i;
    }
    for (auto [buffer, data] : {std::pair{&depths, static_cast<const void*>(depth.data())},
                                std::pair{&ids, static_cast<const void*>(id.data())}}) {
      void* mapped;
      app::check(vkMapMemory(device, buffer->memory, 0, bytes, 0, &mapped), "vkMapMemory");
      std::memcpy(mapped, data, live * sizeof(uint32_t));
      vkUnmapMemory(device, buffer->memory);
    }
    app::submit_once(ctx, [&](VkCommandBuffer cmd) {
      sort.record(cmd, {.count = live, .keys_in = depths.view, .keys_out = sorted_depths.view,
                        .values_in = ids.view, .values_out = sorted_ids.view, .temp = temp.view});
      app::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
    });
    // The CPU's answer: a stable sort of the ids by depth, far first.
    std::vector<uint32_t> want(live);
    std::iota(want.begin(), want.end(), 0u);
    std::stable_sort(want.begin(), want.end(), [&](uint32_t a, uint32_t b) { return depth[a] > depth[b]; });
    void* mapped;
    app::check(vkMapMemory(device, sorted_ids.memory, 0, bytes, 0, &mapped), "vkMapMemory");
    const bool same = std::equal(want.begin(), want.end(), static_cast<const uint32_t*>(mapped));
    vkUnmapMemory(device, sorted_ids.memory);
    frames_in_order += same ? 1 : 0;
  }

  // The same plan on host data: upload, sort, download (one call).
  const std::vector<float> few = {2.5f, 90.0f, 2.5f, 40.0f};
  const std::vector<uint32_t> few_ids = {0, 1, 2, 3};
  const gpuscan::SortedBytes out =
      sort.run({.keys = std::as_bytes(std::span(few)), .values = std::as_bytes(std::span(few_ids))});
  std::vector<uint32_t> order(few.size());
  std::memcpy(order.data(), out.values.data(), out.values.size());

  std::cout << "device: " << ctx.device_info().name << '\n'
            << "frames sorted result:   " << frames_in_order << '\n'
            << "frames sorted expected: " << std::size(live_per_frame) << '\n'
            << "pipelines built in frames result:   " << ctx.pipeline_count() - pipelines_at_load << '\n'
            << "pipelines built in frames expected: 0\n"
            << "host run order result:   " << app::summary(order.data(), order.size()) << '\n'
            << "host run order expected: " << app::summary(std::vector<uint32_t>{1, 3, 0, 2}.data(), 4) << '\n';
  for (app::Buffer* b : {&depths, &ids, &sorted_depths, &sorted_ids, &temp}) app::destroy(device, *b);
} catch (const std::exception& e) {
  std::cerr << "particle_sort: " << e.what() << '\n';
  return 1;
}
