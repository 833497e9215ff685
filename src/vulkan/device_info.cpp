#include <algorithm>
#include <cstring>
#include <vector>

#include "vulkan/context_impl.hpp"
#include "vulkan/reconvergence.hpp"

namespace gpuscan {

std::string_view to_string(VkPhysicalDeviceType type) noexcept {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string_view to_string(Addressing addressing) noexcept {
  switch (addressing) {
    case Addressing::bindings: return "bindings";
    case Addressing::device_address: return "device_address";
    default: return "automatic";
  }
}

namespace vk {

uint32_t find_compute_queue_family(const Functions& fn, VkPhysicalDevice physical) {
  uint32_t count = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  uint32_t any = UINT32_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    // A compute-only family runs beside graphics work on GPUs that have one; any compute family will do.
    if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return i;
    if (any == UINT32_MAX) any = i;
  }
  return any;
}

std::vector<VkExtensionProperties> device_extensions(const Functions& fn, VkPhysicalDevice physical) {
  uint32_t count = 0;
  fn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  fn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  return extensions;
}

bool lists(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

DeviceInfo query_device_info(const Functions& fn, VkPhysicalDevice physical, uint32_t index) {
  VkPhysicalDeviceProperties base;
  fn.vkGetPhysicalDeviceProperties(physical, &base);

  DeviceInfo info;
  info.index = index;
  info.name = base.deviceName;
  info.type = base.deviceType;
  info.api_version = base.apiVersion;
  info.vendor_id = base.vendorID;
  info.device_id = base.deviceID;
  std::copy_n(base.pipelineCacheUUID, VK_UUID_SIZE, info.pipeline_cache_uuid.begin());
  const VkPhysicalDeviceLimits& limits = base.limits;
  info.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) info.max_workgroup_count[i] = limits.maxComputeWorkGroupCount[i];
  info.max_storage_buffer_range = limits.maxStorageBufferRange;
  info.min_storage_buffer_offset_alignment = limits.minStorageBufferOffsetAlignment;
  info.max_shared_memory_bytes = limits.maxComputeSharedMemorySize;
  VkPhysicalDeviceMemoryProperties memory;
  fn.vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    info.largest_memory_heap_bytes = std::max<uint64_t>(info.largest_memory_heap_bytes, memory.memoryHeaps[i].size);

  if (VK_API_VERSION_MINOR(base.apiVersion) >= 1 || VK_API_VERSION_MAJOR(base.apiVersion) > 1) {
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &subgroup;
    fn.vkGetPhysicalDeviceProperties2(physical, &props2);
    info.subgroup_size = subgroup.subgroupSize;
    if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
      info.subgroup_operations = subgroup.supportedOperations;
  }

  VkPhysicalDeviceFeatures features;
  fn.vkGetPhysicalDeviceFeatures(physical, &features);
  info.shader_int64 = features.shaderInt64;
  info.shader_float64 = features.shaderFloat64;
  if (base.apiVersion >= VK_API_VERSION_1_2) {
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f.pNext = &f12;
    fn.vkGetPhysicalDeviceFeatures2(physical, &f);
    info.single_pass_capable = f.features.shaderInt64 && f12.shaderBufferInt64Atomics &&
                               info.has_subgroup_arithmetic() && info.has_subgroup_ballot();
    info.subgroup_extended_types = f12.shaderSubgroupExtendedTypes;
    info.buffer_device_address = f12.bufferDeviceAddress;
  }

  const std::vector<VkExtensionProperties> extensions = device_extensions(fn, physical);
  const auto has = [&](const char* name) { return lists(extensions, name); };
  info.max_subgroup_size = info.min_subgroup_size = info.subgroup_size;
  if (base.apiVersion >= VK_API_VERSION_1_3 || has(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
    // Where subgroup sizes may vary between pipelines (Intel's 8 to 32, AMD's wave32 and wave64), a kernel
    // may run with any of them, so workgroups are sized for the widest.
    VkPhysicalDeviceSubgroupSizeControlProperties control{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &control;
    fn.vkGetPhysicalDeviceProperties2(physical, &props2);
    info.max_subgroup_size = std::max(info.subgroup_size, control.maxSubgroupSize);
    if (control.minSubgroupSize) info.min_subgroup_size = std::min(info.subgroup_size, control.minSubgroupSize);
    info.max_compute_workgroup_subgroups = control.maxComputeWorkgroupSubgroups;
    VkPhysicalDeviceSubgroupSizeControlFeatures size_control{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
    VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f.pNext = &size_control;
    fn.vkGetPhysicalDeviceFeatures2(physical, &f);
    info.subgroup_size_control =
        size_control.subgroupSizeControl && (control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
    info.compute_full_subgroups = size_control.computeFullSubgroups;
  }
  if (info.api_version >= VK_API_VERSION_1_1) {
    // Only to size the look-ahead scan's grid; reading a property needs the extension listed, not enabled.
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceShaderCorePropertiesAMD amd{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
    VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    if (has(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
      props2.pNext = &nv;
    } else if (has(VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) {
      props2.pNext = &amd;
    } else if (has(VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME)) {
      props2.pNext = &arm;
    }
    if (props2.pNext != nullptr) {
      fn.vkGetPhysicalDeviceProperties2(physical, &props2);
      if (props2.pNext == &nv) info.shader_cores = nv.shaderSMCount;
      if (props2.pNext == &amd)
        info.shader_cores = amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
      if (props2.pNext == &arm) info.shader_cores = arm.shaderCoreCount;
    }
  }
  info.push_descriptors = has(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  info.pipeline_executable_properties = has(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  // The reconvergence guarantees (reconvergence.hpp): each needs its extension and its feature; maximal
  // reconvergence also the subgroup-uniform extension, which it depends on.
  if (has(VK_KHR_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_EXTENSION_NAME) && info.api_version >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR uniform{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_FEATURES_KHR};
    MaximalReconvergenceFeatures maximal;
    const bool has_maximal = has(maximal_reconvergence_extension);
    if (has_maximal) uniform.pNext = &maximal;
    VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f.pNext = &uniform;
    fn.vkGetPhysicalDeviceFeatures2(physical, &f);
    info.subgroup_uniform_control_flow = uniform.shaderSubgroupUniformControlFlow;
    info.maximal_reconvergence = has_maximal && maximal.shaderMaximalReconvergence;
  }

  const uint32_t family = find_compute_queue_family(fn, physical);
  if (family != UINT32_MAX) {
    uint32_t n = 0;
    fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, families.data());
    if (families[family].timestampValidBits > 0) info.timestamp_period_ns = limits.timestampPeriod;
  }
  return info;
}

}  // namespace vk
}  // namespace gpuscan
