// Pipelines are built from the embedded SPIR-V on first use or by the prepare_* calls, through the Context's
// pipeline cache, and kept for the Context's lifetime. Every module declares the Context's reconvergence
// guarantee (vulkan/reconvergence.hpp).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <shared_mutex>
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
  vk::check(fn.vkCreateShaderModule(device, &info, nullptr, &module), "vkCreateShaderModule");
  return module;
}

void Context::Impl::add_module(const std::string& name, std::span<const uint32_t> spirv) {
  std::lock_guard lock(pipelines_mutex);
  if (!modules.contains(name)) modules.emplace(name, create_module(spirv));
}

VkPipeline Context::Impl::pipeline(const PipelineKey& key) {
  {
    std::shared_lock lock(pipelines_mutex);
    if (auto it = pipelines.find(key); it != pipelines.end()) return it->second;
  }
  std::lock_guard lock(pipelines_mutex);
  if (auto it = pipelines.find(key); it != pipelines.end()) return it->second;  // built meanwhile

  auto module = modules.find(key.variant);
  if (module == modules.end()) {
    const auto& table = vk::embedded_shaders();
    auto found = std::find_if(table.begin(), table.end(),
                              [&](const vk::EmbeddedShader& s) { return key.variant == s.name; });
    if (found == table.end())
      throw Error(Errc::unsupported, "no shader variant " + key.variant +
                                         " is built into gpuscan (was it configured with fewer GPUSCAN_TYPES?)");
    module = modules.emplace(key.variant, create_module(vk::spirv_words(*found))).first;
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
  if (on_pipeline_statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  // Subgroups. The kernels index shared memory by gl_SubgroupID and count gl_NumSubgroups, which is
  // sound only when every subgroup is full: Vulkan promises that only with computeFullSubgroups and this
  // flag, so gpuscan sets it wherever it can. W (specialization constant 0, 0 for the two kernels with a
  // fixed local size) is a multiple of every subgroup size the device may pick: core::tile_shape keeps it
  // a power of two no narrower than max_subgroup_size.
  const uint32_t w = key.workgroup_size;
  const uint32_t unit = required_subgroup_size ? required_subgroup_size : this->info.max_subgroup_size;
  if (full_subgroups_enabled && w != 0 && w % unit == 0)
    info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  if (required_subgroup_size) {  // TestHooks::required_subgroup_size; W fits (create_context_for_tests)
    required.requiredSubgroupSize = required_subgroup_size;
    info.stage.pNext = &required;
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  vk::check(fn.vkCreateComputePipelines(device, pipeline_cache, 1, &info, nullptr, &pipeline),
            "vkCreateComputePipelines");
  pipelines.emplace(key, pipeline);
  if (on_pipeline_statistics) report_pipeline_statistics(pipeline, key);
  return pipeline;
}

// One call per pipeline executable: the variant, its constants, then the driver's statistics.
void Context::Impl::report_pipeline_statistics(VkPipeline pipeline, const PipelineKey& key) const {
  const auto properties = fn.vkGetPipelineExecutablePropertiesKHR;
  const auto statistics = fn.vkGetPipelineExecutableStatisticsKHR;
  if (!properties || !statistics) return;
  VkPipelineInfoKHR pipeline_info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipeline_info.pipeline = pipeline;
  uint32_t count = 0;
  if (properties(device, &pipeline_info, &count, nullptr) != VK_SUCCESS) return;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (properties(device, &pipeline_info, &count, executables.data()) != VK_SUCCESS) return;
  const auto constants = key.constants();
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipeline;
    executable.executableIndex = e;
    uint32_t n = 0;
    if (statistics(device, &executable, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (statistics(device, &executable, &n, stats.data()) != VK_SUCCESS) continue;
    PipelineStatistics report{key.variant, {constants.begin(), constants.end()}, executables[e].name, {}};
    for (const auto& s : stats) {
      PipelineStatistic& out = report.statistics.emplace_back(PipelineStatistic{s.name, false});
      switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: out.value = s.value.b32 != VK_FALSE; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: out.value = s.value.i64; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: out.value = s.value.u64; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: out.value = s.value.f64; break;
        default: report.statistics.pop_back(); break;
      }
    }
    on_pipeline_statistics(report);
  }
}

void Context::Impl::create_pipeline_cache(std::span<const std::byte> initial) {
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  if (pipeline_cache_fits(initial, this->info)) {
    info.initialDataSize = initial.size();
    info.pInitialData = initial.data();
  }
  vk::check(fn.vkCreatePipelineCache(device, &info, nullptr, &pipeline_cache), "vkCreatePipelineCache");
  owns_pipeline_cache = true;
}

bool pipeline_cache_fits(std::span<const std::byte> data, const DeviceInfo& device) noexcept {
  constexpr size_t header_bytes = 16 + VK_UUID_SIZE;  // four 32-bit words, then the UUID
  if (data.size() < header_bytes) return false;
  uint32_t words[4];
  std::memcpy(words, data.data(), sizeof words);
  return words[0] >= header_bytes && words[0] <= data.size() && words[1] == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         words[2] == device.vendor_id && words[3] == device.device_id &&
         std::memcmp(data.data() + 16, device.pipeline_cache_uuid.data(), VK_UUID_SIZE) == 0;
}

std::vector<std::byte> Context::pipeline_cache_data() const {
  // Shared: no gpuscan pipeline is built meanwhile, so the size asked first stays right; an adopted cache
  // that the application grows at the same time only makes the second call VK_INCOMPLETE: ask again.
  std::shared_lock lock(impl_->pipelines_mutex);
  for (;;) {
    size_t size = 0;
    vk::check(impl_->fn.vkGetPipelineCacheData(impl_->device, impl_->pipeline_cache, &size, nullptr), "vkGetPipelineCacheData");
    std::vector<std::byte> data(size);
    const VkResult r = impl_->fn.vkGetPipelineCacheData(impl_->device, impl_->pipeline_cache, &size, data.data());
    if (r == VK_INCOMPLETE) continue;
    vk::check(r, "vkGetPipelineCacheData");
    data.resize(size);
    return data;
  }
}

size_t Context::pipeline_count() const {
  std::shared_lock lock(impl_->pipelines_mutex);
  return impl_->pipelines.size();
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
  const VkPipeline bound = pipeline(key);
  if (cmd == VK_NULL_HANDLE) return;  // a prepare_* call: building the pipeline was all it wanted
  fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, bound);
  fn.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, count, writes);
  // Always the whole range, unused words zero: push constants persist across pipelines, so words a
  // caller leaves out would keep an earlier dispatch's values (a compaction's offsets once reached a
  // scan as its carry-in).
  uint32_t words[push_constant_words] = {};
  std::copy_n(params.begin(), std::min<size_t>(params.size(), push_constant_words), words);
  fn.vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof words, words);
  if (indirect) fn.vkCmdDispatchIndirect(cmd, indirect->buffer, indirect->offset);
  else fn.vkCmdDispatch(cmd, groups_x, groups_y, 1);
}

}  // namespace gpuscan
