// A GPU-driven, culling-style pipeline with no readback in between: of n objects, keep the instance
// counts of the visible ones (stream compaction, the number kept written to a GPU buffer), then turn
// those counts into each visible object's first instance (an exclusive scan) — what an indirect draw
// or a later compute pass would consume. Everything is recorded into one command buffer of the
// application's; the host reads the results once, at the end, only to check them.
//
// The count the compaction produced is known only on the GPU, so the scan takes it from there
// (ScanArgs::count_from): it is planned for the upper bound n, reads the count when it runs and
// dispatches only the workgroups that count needs (vkCmdDispatchIndirect). offsets[0, kept) are the
// first instances; nothing past them is written.
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <vector>

#include "app_vulkan.hpp"

int main() try {
  const gpuscan::Context ctx = gpuscan::Context::create();
  const VkDevice device = ctx.device();
  const uint32_t n = 20000;  // objects
  const VkDeviceSize bytes = n * sizeof(uint32_t);

  // The scene: per object, how many instances it draws (1..8) and whether it survived culling.
  std::vector<uint32_t> instances(n), visible(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t h = i * 2654435761u;  // a cheap hash so the pattern is irregular
    instances[i] = 1 + (h >> 7) % 8;
    visible[i] = (h >> 13) % 3 == 0 ? 1u : 0u;  // about a third visible
  }

  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  app::Buffer instance_buf = app::create_buffer(ctx, bytes, storage);
  app::Buffer visible_buf = app::create_buffer(ctx, bytes, storage);
  app::Buffer compacted = app::create_buffer(ctx, bytes, storage);
  app::Buffer kept_count = app::create_buffer(ctx, sizeof(uint32_t), storage);
  app::Buffer offsets = app::create_buffer(ctx, bytes, storage);
  for (auto [buffer, data] : {std::pair{&instance_buf, &instances}, std::pair{&visible_buf, &visible}}) {
    void* mapped;
    app::check(vkMapMemory(device, buffer->memory, 0, bytes, 0, &mapped), "vkMapMemory");
    std::memcpy(mapped, data->data(), bytes);  // host writes before vkQueueSubmit are visible to the GPU
    vkUnmapMemory(device, buffer->memory);
  }

  // One temp buffer for both steps: the larger size, both usages (they run one after the other).
  const gpuscan::CompactConfig compact_config;  // u32, automatic path
  const gpuscan::ScanConfig scan_config;        // u32 exclusive, automatic algorithm
  const gpuscan::TempRequirements compact_temp = gpuscan::compact_temp_requirements(ctx, n, compact_config);
  const gpuscan::TempRequirements scan_temp =
      gpuscan::scan_temp_requirements(ctx, n, scan_config, /*indirect=*/true);
  app::Buffer temp = app::create_buffer(ctx, std::max<VkDeviceSize>({compact_temp.size, scan_temp.size, 4}),
                                        storage | compact_temp.usage | scan_temp.usage);

  app::submit_once(ctx, [&](VkCommandBuffer cmd) {
    gpuscan::record_select_flagged(ctx, cmd,
                                   {.config = compact_config,
                                    .count = n,
                                    .input = instance_buf.view,
                                    .flags = visible_buf.view,
                                    .output = compacted.view,
                                    .count_out = kept_count.view,
                                    .temp = temp.view});
    // The scan reads what the compaction wrote and reuses its temp buffer (a single-pass scan may clear
    // it with vkCmdFillBuffer): compute writes before compute and transfer (docs/scan.md, barrier contract).
    app::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    gpuscan::record_scan(ctx, cmd,
                         {.config = scan_config, .count = n, .input = compacted.view, .output = offsets.view,
                          .temp = temp.view, .count_from = gpuscan::IndirectCount{.buffer = kept_count.view}});
    app::barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  });

  // Check against the CPU.
  std::vector<uint32_t> expected_offsets;
  uint32_t total = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (visible[i]) {
      expected_offsets.push_back(total);
      total += instances[i];
    }
  void* mapped_count;
  void* mapped_offsets;
  void* mapped_compacted;
  app::check(vkMapMemory(device, kept_count.memory, 0, sizeof(uint32_t), 0, &mapped_count), "vkMapMemory");
  app::check(vkMapMemory(device, offsets.memory, 0, bytes, 0, &mapped_offsets), "vkMapMemory");
  app::check(vkMapMemory(device, compacted.memory, 0, bytes, 0, &mapped_compacted), "vkMapMemory");
  const uint32_t kept = *static_cast<const uint32_t*>(mapped_count);
  const auto* first_instance = static_cast<const uint32_t*>(mapped_offsets);
  const auto* kept_instances = static_cast<const uint32_t*>(mapped_compacted);
  if (kept == 0 || kept >= n) throw std::runtime_error("this scene should keep some but not all objects");
  std::cout << "device: " << ctx.device_info().name << '\n'
            << "visible objects result:   " << kept << '\n'
            << "visible objects expected: " << expected_offsets.size() << '\n'
            << "first instances result:   " << app::summary(first_instance, kept) << '\n'
            << "first instances expected: " << app::summary(expected_offsets.data(), expected_offsets.size()) << '\n'
            << "total instances result:   " << first_instance[kept - 1] + kept_instances[kept - 1] << '\n'
            << "total instances expected: " << total << '\n';
  vkUnmapMemory(device, compacted.memory);
  vkUnmapMemory(device, offsets.memory);
  vkUnmapMemory(device, kept_count.memory);
  for (app::Buffer* b : {&instance_buf, &visible_buf, &compacted, &kept_count, &offsets, &temp}) app::destroy(device, *b);
} catch (const std::exception& e) {
  std::cerr << "culling_pipeline: " << e.what() << '\n';
  return 1;
}
