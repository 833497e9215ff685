// Pipelines are built on first use from the embedded SPIR-V and kept for the Context's lifetime. Every module
// declares the Context's reconvergence guarantee (vulkan/reconvergence.hpp).
#include <algorithm>
#include <cstdio>
#include <vector>

#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/reconvergence.hpp"
#include "vulkan/shader_table.hpp"

namespace gpuscan {

VkShaderModule Context::Impl::create_module(std::span<const uint32_t> spirv) const {
  const std::vector<uint32_t> code = vk::with_reconvergence(spirv, reconvergence);
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = code.size() * sizeof(uint32_t);
  info.pCode = code.data();
  VkShaderModule module = VK_NULL_HANDLE;
  vk::check(vkCreateShaderModule(device, &info, nullptr, &module), "vkCreateShaderModule");
  return module;
}

void Context::Impl::add_module(const std::string& name, std::span<const uint32_t> spirv) {
  std::lock_guard lock(pipelines_mutex);
  if (!modules.contains(name)) modules.emplace(name, create_module(spirv));
}

VkPipeline Context::Impl::pipeline(const PipelineKey& key) {
  std::lock_guard lock(pipelines_mutex);
  if (auto it = pipelines.find(key); it != pipelines.end()) return it->second;

  auto module = modules.find(key.variant);
  if (module == modules.end()) {
    const auto& table = vk::embedded_shaders();
    auto found = std::find_if(table.begin(), table.end(),
                              [&](const vk::EmbeddedShader& s) { return key.variant == s.name; });
    if (found == table.end())
      throw Error(Errc::unsupported, "no shader variant " + key.variant +
                                         " is built into gpuscan (was it configured with fewer GPUSCAN_TYPES?)");
    module = modules.emplace(key.variant, create_module({found->words, found->size_bytes / 4})).first;
  }

  // constant_id i takes values[i]; ids a shader does not declare are ignored by Vulkan.
  const auto values = key.constants();
  VkSpecializationMapEntry entries[PipelineKey::constant_count];
  for (uint32_t i = 0; i < PipelineKey::constant_count; ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo spec{PipelineKey::constant_count, entries, sizeof(values), values.data()};

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module->second;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = &spec;
  info.layout = pipeline_layout;
  if (pipeline_stats) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline = VK_NULL_HANDLE;
  vk::check(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
            "vkCreateComputePipelines");
  if (pipeline_stats) print_pipeline_stats(pipeline, key);
  pipelines.emplace(key, pipeline);
  return pipeline;
}

// One line per pipeline executable: the variant, its constants, then the driver's statistics as name=value.
void Context::Impl::print_pipeline_stats(VkPipeline pipeline, const PipelineKey& key) const {
  auto properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
  if (!properties || !statistics) return;
  VkPipelineInfoKHR pipeline_info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipeline_info.pipeline = pipeline;
  uint32_t count = 0;
  if (properties(device, &pipeline_info, &count, nullptr) != VK_SUCCESS) return;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (properties(device, &pipeline_info, &count, executables.data()) != VK_SUCCESS) return;
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipeline;
    executable.executableIndex = e;
    uint32_t n = 0;
    if (statistics(device, &executable, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (statistics(device, &executable, &n, stats.data()) != VK_SUCCESS) continue;
    std::fprintf(stderr, "gpuscan pipeline %s", key.variant.c_str());
    const auto constants = key.constants();
    for (uint32_t i = 0; i < PipelineKey::constant_count; ++i) std::fprintf(stderr, "%c%u", i ? ',' : ' ', constants[i]);
    std::fprintf(stderr, " [%s]", executables[e].name);
    for (const auto& s : stats) {
      switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: std::fprintf(stderr, " %s=%u", s.name, s.value.b32); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: std::fprintf(stderr, " %s=%lld", s.name, static_cast<long long>(s.value.i64)); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: std::fprintf(stderr, " %s=%llu", s.name, static_cast<unsigned long long>(s.value.u64)); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: std::fprintf(stderr, " %s=%g", s.name, s.value.f64); break;
        default: break;
      }
    }
    std::fprintf(stderr, "\n");
  }
}

void Context::Impl::record_dispatch(VkCommandBuffer cmd, const PipelineKey& key,
                                    std::span<const VkDescriptorBufferInfo> buffers, std::span<const uint32_t> params,
                                    uint32_t groups_x, uint32_t groups_y, std::optional<IndirectCommand> indirect) {
  VkWriteDescriptorSet writes[8];
  const uint32_t count = static_cast<uint32_t>(std::min<size_t>(buffers.size(), 8));
  for (uint32_t i = 0; i < count; ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &buffers[i];
  }
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(key));
  cmd_push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, count, writes);
  // Always the whole range, unused words zero: push constants persist across pipelines, so words a
  // caller leaves out would keep an earlier dispatch's values (a compaction's offsets once reached a
  // scan as its carry-in).
  uint32_t words[push_constant_words] = {};
  std::copy_n(params.begin(), std::min<size_t>(params.size(), push_constant_words), words);
  vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof words, words);
  if (indirect) vkCmdDispatchIndirect(cmd, indirect->buffer, indirect->offset);
  else vkCmdDispatch(cmd, groups_x, groups_y, 1);
}

}  // namespace gpuscan
