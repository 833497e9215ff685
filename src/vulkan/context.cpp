// Context creation: gpuscan's own instance and device, or the application's adopted ones.
#include <algorithm>
#include <bit>
#include <numeric>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "core/windows.hpp"
#include "gpuscan/testing.hpp"
#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/reconvergence.hpp"

namespace gpuscan {
namespace {

constexpr const char* validation_layer = "VK_LAYER_KHRONOS_validation";

bool instance_has_layer(const vk::Functions& fn, const char* name) {
  uint32_t count = 0;
  fn.vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  fn.vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

// The spec version of an instance layer, 0 if it is not installed.
uint32_t layer_spec_version(const vk::Functions& fn, const char* name) {
  uint32_t count = 0;
  fn.vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  fn.vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return l.specVersion;
  return 0;
}

bool instance_has_extension(const vk::Functions& fn, const char* name) {
  uint32_t count = 0;
  fn.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> exts(count);
  fn.vkEnumerateInstanceExtensionProperties(nullptr, &count, exts.data());
  return vk::lists(exts, name);
}

// The Vulkan version gpuscan's instances ask for: the loader's, up to 1.3.
uint32_t instance_api_version(const vk::Functions& fn) {
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (fn.vkEnumerateInstanceVersion) fn.vkEnumerateInstanceVersion(&loader_version);  // absent in 1.0 loaders
  return std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                void* user) {
  const auto* impl = static_cast<const Context::Impl*>(user);
  if (!impl->on_message) return VK_FALSE;
  MessageSeverity s = MessageSeverity::verbose;
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) s = MessageSeverity::error;
  else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) s = MessageSeverity::warning;
  else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) s = MessageSeverity::info;
  impl->on_message(s, data && data->pMessage ? data->pMessage : "");
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(Context::Impl* impl) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_debug_message;
  info.pUserData = impl;
  return info;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Lower is better: discrete, integrated, virtual, CPU, other.
int type_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

// Why gpuscan cannot run on a device, or "" if it can.
std::string unusable_reason(const vk::Functions& fn, const DeviceInfo& d, VkPhysicalDevice physical) {
  if (VK_API_VERSION_MAJOR(d.api_version) == 1 && VK_API_VERSION_MINOR(d.api_version) < 1)
    return "it supports only Vulkan 1.0 (gpuscan needs 1.1)";
  if (!d.push_descriptors) return "it lacks VK_KHR_push_descriptor";
  if (vk::find_compute_queue_family(fn, physical) == UINT32_MAX) return "it has no compute queue";
  return "";
}

std::vector<VkPhysicalDevice> enumerate_physical(const vk::Functions& fn, VkInstance instance) {
  uint32_t count = 0;
  vk::check(fn.vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  vk::check(fn.vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  return devices;
}

// Creates gpuscan's own instance through impl->fn's global functions.
VkInstance create_instance(Context::Impl* impl, bool validation) {
  const vk::Functions& fn = impl->fn;
  const uint32_t api_version = instance_api_version(fn);
  if (api_version < VK_API_VERSION_1_1)
    throw Error(Errc::no_device, "the Vulkan loader supports only Vulkan 1.0; gpuscan needs 1.1");

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "gpuscan";
  app.pEngineName = "gpuscan";
  app.apiVersion = api_version;

  std::vector<const char*> layers, extensions;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (instance_has_extension(fn, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  VkDebugUtilsMessengerCreateInfoEXT debug = messenger_info(impl);
  const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  if (validation) {
    if (!instance_has_layer(fn, validation_layer))
      throw Error(Errc::unsupported, std::string(validation_layer) +
                                         " is not installed (Debian: apt-get install vulkan-validationlayers)");
    layers.push_back(validation_layer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    debug.pNext = &features;
    info.pNext = &debug;  // also reports problems during instance creation and destruction
  }
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  VkInstance instance = VK_NULL_HANDLE;
  VkResult r = fn.vkCreateInstance(&info, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw VulkanError(Errc::no_device,
                      "no Vulkan driver found (on Debian without a GPU: apt-get install mesa-vulkan-drivers)", r);
  vk::check(r, "vkCreateInstance");
  return instance;
}

// The usable devices of the best type present, in enumeration order; why the others are unusable goes
// to `reasons` ("; name: why" each).
std::vector<uint32_t> preferred_device_indices(const vk::Functions& fn, const std::vector<VkPhysicalDevice>& devices,
                                               const std::vector<DeviceInfo>& infos, std::string* reasons) {
  std::vector<uint32_t> usable;
  int best = 5;
  for (uint32_t i = 0; i < infos.size(); ++i) {
    const std::string why = unusable_reason(fn, infos[i], devices[i]);
    if (!why.empty()) {
      if (reasons) *reasons += "; " + infos[i].name + ": " + why;
      continue;
    }
    usable.push_back(i);
    best = std::min(best, type_rank(infos[i].type));
  }
  std::erase_if(usable, [&](uint32_t i) { return type_rank(infos[i].type) != best; });
  return usable;
}

// Picks the physical device for `selector` (see ContextCreateInfo::device_selector).
uint32_t choose_device(const vk::Functions& fn, const std::vector<VkPhysicalDevice>& devices, const std::vector<DeviceInfo>& infos,
                       const std::string& selector) {
  if (devices.empty()) throw Error(Errc::no_device, "the Vulkan loader reports no physical device");

  auto require_usable = [&](uint32_t i) {
    std::string why = unusable_reason(fn, infos[i], devices[i]);
    if (!why.empty())
      throw Error(Errc::unsupported, "device " + std::to_string(i) + " (" + infos[i].name +
                                         ") cannot run gpuscan: " + why);
    return i;
  };
  if (!selector.empty()) {
    const bool numeric = std::all_of(selector.begin(), selector.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (numeric) {
      const unsigned long i = std::strtoul(selector.c_str(), nullptr, 10);
      if (i >= devices.size())
        throw Error(Errc::no_device, "device index " + selector + " is out of range: there are " +
                                         std::to_string(devices.size()) + " device(s)");
      return require_usable(static_cast<uint32_t>(i));
    }
    for (uint32_t i = 0; i < infos.size(); ++i)
      if (lower(infos[i].name).find(lower(selector)) != std::string::npos) return require_usable(i);
    std::string names;
    for (const auto& d : infos) names += (names.empty() ? "" : ", ") + d.name;
    throw Error(Errc::no_device, "no device name contains \"" + selector + "\" (devices: " + names + ")");
  }
  std::string reasons;
  const std::vector<uint32_t> preferred = preferred_device_indices(fn, devices, infos, &reasons);
  if (preferred.empty()) throw Error(Errc::no_device, "no Vulkan device can run gpuscan" + reasons);
  return preferred.front();
}

// The addressing a Context runs with: `requested`, unless device addresses were asked for and the device
// cannot use them.
Addressing checked_addressing(Addressing requested, bool enabled, bool device_has) {
  if (requested != Addressing::device_address || enabled) return requested;
  throw Error(Errc::unsupported,
              !device_has ? "Addressing::device_address: the device lacks Vulkan 1.2's bufferDeviceAddress feature"
                          : "Addressing::device_address: the adopted device was not created with bufferDeviceAddress "
                            "enabled (AdoptInfo::buffer_device_address_enabled)");
}

// The fence polling of submit_and_wait (ContextCreateInfo::fence_poll_us, AdoptInfo's).
std::chrono::microseconds fence_poll(const std::optional<uint32_t>& us, std::chrono::microseconds fallback) {
  return us ? std::chrono::microseconds(*us) : fallback;
}

}  // namespace

// What gpuscan enables on a device (Context::create enables this; an application creating its own device
// reads it through DeviceRequirements). Heap-held and never moved, so the chain's pointers stay valid.
struct DeviceRequirements::Impl {
  DeviceInfo info;
  std::vector<const char*> extensions;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR uniform_control_flow{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_FEATURES_KHR};
  vk::MaximalReconvergenceFeatures maximal_reconvergence;
  VkPhysicalDeviceSubgroupSizeControlFeatures size_control{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_info{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  // What is enabled, as AdoptInfo's flags say it.
  bool int64 = false, float64 = false, extended_types = false, single_pass = false, device_address = false;
  bool subgroup_size_control = false, full_subgroups = false, pipeline_statistics = false;
  Reconvergence reconvergence = Reconvergence::none;

  void link(void* next) {
    static_cast<VkBaseOutStructure*>(next)->pNext = static_cast<VkBaseOutStructure*>(features.pNext);
    features.pNext = next;
  }
};

namespace {

std::shared_ptr<DeviceRequirements::Impl> requirements_for(const vk::Functions& fn, DeviceInfo info,
                                                           VkPhysicalDevice physical,
                                                           const DeviceRequirements::Options& options) {
  auto r = std::make_shared<DeviceRequirements::Impl>();
  r->info = std::move(info);
  const DeviceInfo& d = r->info;
  r->extensions = Context::required_device_extensions();
  // The 64-bit types', the single-pass scan's and device addresses' features, where the device has them.
  r->features.features.shaderInt64 = d.shader_int64;
  r->features.features.shaderFloat64 = d.shader_float64;
  r->int64 = d.shader_int64;
  r->float64 = d.shader_float64;
  if (d.api_version >= VK_API_VERSION_1_2) {  // Vulkan12Features may be chained only from 1.2 on
    r->link(&r->f12);
    r->f12.shaderSubgroupExtendedTypes = d.subgroup_extended_types;
    r->extended_types = d.subgroup_extended_types;
    if (d.single_pass_capable) r->f12.shaderBufferInt64Atomics = r->single_pass = true;
    if (d.buffer_device_address) r->f12.bufferDeviceAddress = r->device_address = true;
  }
  // The strongest reconvergence guarantee the device offers (vulkan/reconvergence.hpp); maximal
  // reconvergence needs the subgroup-uniform extension enabled too.
  if (options.reconvergence) {
    const bool layer_allows_maximal = !options.validation_layer ||
                                      vk::layer_knows_maximal_reconvergence(layer_spec_version(fn, validation_layer));
    r->reconvergence = vk::strongest_reconvergence(d, layer_allows_maximal, true);
  }
  if (r->reconvergence != Reconvergence::none) {
    r->extensions.push_back(VK_KHR_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_EXTENSION_NAME);
    r->uniform_control_flow.shaderSubgroupUniformControlFlow = d.subgroup_uniform_control_flow;
    r->link(&r->uniform_control_flow);
  }
  if (r->reconvergence == Reconvergence::maximal) {
    r->extensions.push_back(vk::maximal_reconvergence_extension);
    r->maximal_reconvergence.shaderMaximalReconvergence = VK_TRUE;
    r->link(&r->maximal_reconvergence);
  }
  // Full subgroups for every kernel (and required sizes for the tests) where the device offers them: through
  // the extension where it is listed, else as Vulkan 1.3 core where instance and device both speak 1.3.
  const bool size_control_extension =
      vk::lists(vk::device_extensions(fn, physical), VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if ((d.subgroup_size_control || d.compute_full_subgroups) &&
      (size_control_extension || std::min(d.api_version, instance_api_version(fn)) >= VK_API_VERSION_1_3)) {
    if (size_control_extension) r->extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    r->size_control.subgroupSizeControl = d.subgroup_size_control;
    r->size_control.computeFullSubgroups = d.compute_full_subgroups;
    r->link(&r->size_control);
    r->subgroup_size_control = d.subgroup_size_control;
    r->full_subgroups = d.compute_full_subgroups;
  }
  if (options.pipeline_statistics && d.pipeline_executable_properties) {
    r->extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    r->executable_info.pipelineExecutableInfo = VK_TRUE;
    r->link(&r->executable_info);
    r->pipeline_statistics = true;
  }
  return r;
}

// The DeviceInfo of `physical`, one of `instance`'s devices (Errc::invalid_argument if it is not).
DeviceInfo info_of(const vk::Functions& fn, VkInstance instance, VkPhysicalDevice physical) {
  uint32_t index = 0;
  const auto devices = enumerate_physical(fn, instance);
  bool found = false;
  for (uint32_t i = 0; i < devices.size(); ++i)
    if (devices[i] == physical) index = i, found = true;
  if (!found) throw Error(Errc::invalid_argument, "the physical device is not one of the instance's devices");
  return vk::query_device_info(fn, physical, index);
}

// What gpuscan enables on `physical`: Errc::unsupported where gpuscan cannot run on it.
std::shared_ptr<DeviceRequirements::Impl> usable_requirements(VkInstance instance, VkPhysicalDevice physical,
                                                              const DeviceRequirements::Options& options) {
  if (!instance || !physical)
    throw Error(Errc::null_handle, "DeviceRequirements needs the instance and the physical device; one is VK_NULL_HANDLE");
  const vk::Functions fn = vk::Functions::instance(options.get_instance_proc_addr, instance);
  DeviceInfo info = info_of(fn, instance, physical);
  const std::string why = unusable_reason(fn, info, physical);
  if (!why.empty()) throw Error(Errc::unsupported, info.name + " cannot run gpuscan: " + why);
  return requirements_for(fn, std::move(info), physical, options);
}

}  // namespace

DeviceRequirements::DeviceRequirements(VkInstance instance, VkPhysicalDevice physical, Options options)
    : impl_(usable_requirements(instance, physical, options)) {}

std::span<const char* const> DeviceRequirements::extensions() const noexcept { return impl_->extensions; }
const VkPhysicalDeviceFeatures2* DeviceRequirements::features() const noexcept { return &impl_->features; }

void DeviceRequirements::apply(AdoptInfo& a) const noexcept {
  const Impl& r = *impl_;
  a.single_pass_features_enabled = r.single_pass;
  a.shader_int64_enabled = r.int64;
  a.subgroup_extended_types_enabled = r.extended_types;
  a.shader_float64_enabled = r.float64;
  a.buffer_device_address_enabled = r.device_address;
  a.subgroup_size_control_enabled = r.subgroup_size_control;
  a.compute_full_subgroups_enabled = r.full_subgroups;
  a.maximal_reconvergence_enabled = r.reconvergence == Reconvergence::maximal;
  a.subgroup_uniform_control_flow_enabled = r.reconvergence != Reconvergence::none;
}

DeviceInfo device_info_of(VkInstance instance, VkPhysicalDevice physical,
                          PFN_vkGetInstanceProcAddr get_instance_proc_addr) {
  if (!instance || !physical)
    throw Error(Errc::null_handle, "device_info_of needs the instance and the physical device; one is VK_NULL_HANDLE");
  return info_of(vk::Functions::instance(get_instance_proc_addr, instance), instance, physical);
}


Context::Impl::~Impl() {
  scratch_device = {};
  scratch_host = {};
  if (device && (!abandoned.empty() || !abandoned_buffers.empty() || !abandoned_queries.empty())) {
    fn.vkDeviceWaitIdle(device);
    for (auto [pool, fence] : abandoned) {
      fn.vkDestroyFence(device, fence, nullptr);
      fn.vkDestroyCommandPool(device, pool, nullptr);
    }
    abandoned_buffers.clear();
    for (VkQueryPool q : abandoned_queries) fn.vkDestroyQueryPool(device, q, nullptr);
  }
  if (device) {
    for (const SubmitSlot& s : submit_slots) {  // idle: their last submissions were waited for
      fn.vkDestroyFence(device, s.fence, nullptr);
      fn.vkDestroyCommandPool(device, s.pool, nullptr);
      if (s.timestamps) fn.vkDestroyQueryPool(device, s.timestamps, nullptr);
    }
    for (auto& [key, p] : pipelines) fn.vkDestroyPipeline(device, p, nullptr);
    for (auto& [name, m] : modules) fn.vkDestroyShaderModule(device, m, nullptr);
    if (owns_pipeline_cache) fn.vkDestroyPipelineCache(device, pipeline_cache, nullptr);
    if (pipeline_layout) fn.vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
    if (set_layout) fn.vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
  }
  if (!owns_device) return;
  if (device) fn.vkDestroyDevice(device, nullptr);
  if (messenger && fn.vkDestroyDebugUtilsMessengerEXT) fn.vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
  // No vkDestroyInstance where loading the instance's functions failed: the instance then leaks, which
  // only an instance of Vulkan 1.0 (refused) can cause.
  if (instance && fn.vkDestroyInstance) fn.vkDestroyInstance(instance, nullptr);
}

uint64_t Context::Impl::window_elements(uint32_t element_bytes, bool device_address) const {
  // Device addresses: no binding, so only the 32-bit indices (or the debugging cap) limit a window.
  if (device_address)
    return core::window_elements(debug_max_window_bytes ? debug_max_window_bytes : (uint64_t{1} << 31) * element_bytes,
                                 element_bytes, element_bytes);
  // Bindings start at multiples of the alignment and of the element size (vk::bind_elements).
  const uint64_t align = std::lcm<uint64_t>(std::max<uint64_t>(info.min_storage_buffer_offset_alignment, 1), element_bytes);
  return core::window_elements(max_binding_bytes, align, element_bytes);
}

void Context::Impl::create_layouts() {
  // src, dst, aux for every pass; then a scan's carry (binding 3), or compaction's flags, count and
  // indices (3, 4, 5).
  VkDescriptorSetLayoutBinding bindings[descriptor_bindings];
  for (uint32_t i = 0; i < descriptor_bindings; ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set_info.bindingCount = descriptor_bindings;
  set_info.pBindings = bindings;
  vk::check(fn.vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout), "vkCreateDescriptorSetLayout");

  // push_constant_words (context_impl.hpp) for every kernel: PassParams (with the .bda variants' addresses)
  // or CompactParams; 128 bytes are guaranteed.
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_words * sizeof(uint32_t)};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  vk::check(fn.vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout), "vkCreatePipelineLayout");

  if (!fn.vkCmdPushDescriptorSetKHR)
    throw Error(Errc::unsupported, "VK_KHR_push_descriptor is not enabled on the device; gpuscan records "
                                   "its bindings with push descriptors");
}

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

std::vector<const char*> Context::required_device_extensions() {
  return {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
}

namespace {

// Loads the global functions through `get_instance_proc_addr` (the system loader's where null), creates
// gpuscan's own instance and loads its functions.
void open_instance(Context::Impl& impl, PFN_vkGetInstanceProcAddr get_instance_proc_addr, bool validation) {
  impl.fn = vk::Functions::global(get_instance_proc_addr);
  impl.instance = create_instance(&impl, validation);
  impl.fn = vk::Functions::instance(impl.fn.vkGetInstanceProcAddr, impl.instance);
}

// Every physical device of a scratch instance, and its DeviceInfo.
struct DeviceList {
  Context::Impl scratch;  // owns the instance, so it is destroyed even if enumeration throws
  std::vector<VkPhysicalDevice> devices;
  std::vector<DeviceInfo> infos;
  explicit DeviceList(PFN_vkGetInstanceProcAddr get_instance_proc_addr) {
    scratch.owns_device = true;
    open_instance(scratch, get_instance_proc_addr, false);
    devices = enumerate_physical(scratch.fn, scratch.instance);
    for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(vk::query_device_info(scratch.fn, devices[i], i));
  }
};

}  // namespace

std::vector<DeviceInfo> Context::list_devices(PFN_vkGetInstanceProcAddr get_instance_proc_addr) {
  return DeviceList(get_instance_proc_addr).infos;
}

std::vector<DeviceInfo> Context::preferred_devices(PFN_vkGetInstanceProcAddr get_instance_proc_addr) {
  const DeviceList list(get_instance_proc_addr);
  std::vector<DeviceInfo> preferred;
  for (uint32_t i : preferred_device_indices(list.scratch.fn, list.devices, list.infos, nullptr))
    preferred.push_back(list.infos[i]);
  return preferred;
}

Context Context::create(const ContextCreateInfo& create_info) {
  auto impl = std::make_unique<Impl>();
  impl->owns_device = true;
  impl->on_message = create_info.on_message;
  if (create_info.timeout_ms != 0) impl->timeout_ns = uint64_t{create_info.timeout_ms} * 1'000'000;
  impl->fence_poll = fence_poll(create_info.fence_poll_us, impl->fence_poll);
  open_instance(*impl, create_info.get_instance_proc_addr, create_info.enable_validation);
  vk::Functions& fn = impl->fn;
  if (create_info.enable_validation) {
    VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(impl.get());
    vk::check(fn.vkCreateDebugUtilsMessengerEXT
                  ? fn.vkCreateDebugUtilsMessengerEXT(impl->instance, &info, nullptr, &impl->messenger)
                  : VK_ERROR_EXTENSION_NOT_PRESENT,
              "vkCreateDebugUtilsMessengerEXT");
  }

  const auto devices = enumerate_physical(fn, impl->instance);
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(vk::query_device_info(fn, devices[i], i));
  const uint32_t chosen = choose_device(fn, devices, infos, create_info.device_selector);
  impl->physical_device = devices[chosen];
  impl->info = infos[chosen];
  impl->profile = &core::select_profile(impl->info.vendor_id, impl->info.device_id, impl->info.name);
  impl->queue_family = vk::find_compute_queue_family(fn, impl->physical_device);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = impl->queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  const auto need = requirements_for(fn, impl->info, impl->physical_device,
                                     {.reconvergence = create_info.use_reconvergence_guarantee,
                                      .validation_layer = create_info.enable_validation,
                                      .pipeline_statistics = static_cast<bool>(create_info.on_pipeline_statistics)});
  const DeviceRequirements::Impl& r = *need;
  impl->int64_enabled = r.int64;
  impl->float64_enabled = r.float64;
  impl->extended_types_enabled = r.extended_types;
  impl->single_pass_enabled = r.single_pass;
  impl->device_address_enabled = r.device_address;
  impl->subgroup_size_control_enabled = r.subgroup_size_control;
  impl->full_subgroups_enabled = r.full_subgroups;
  impl->reconvergence = r.reconvergence;
  if (r.pipeline_statistics) impl->on_pipeline_statistics = create_info.on_pipeline_statistics;
  impl->addressing = checked_addressing(create_info.addressing, impl->device_address_enabled,
                                        impl->info.buffer_device_address);
  const std::vector<const char*>& extensions = r.extensions;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = &r.features;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  vk::check(fn.vkCreateDevice(impl->physical_device, &device_info, nullptr, &impl->device), "vkCreateDevice");
  fn.load_device(impl->device);
  fn.vkGetDeviceQueue(impl->device, impl->queue_family, 0, &impl->queue);

  impl->max_groups_x = impl->info.max_workgroup_count[0];
  impl->look_ahead_grid = core::look_ahead_default_grid(impl->info.shader_cores);
  impl->max_binding_bytes = impl->info.max_storage_buffer_range;
  impl->create_layouts();
  impl->create_pipeline_cache(create_info.load_pipeline_cache ? create_info.load_pipeline_cache(impl->info)
                                                              : std::vector<std::byte>{});
  return Context(std::move(impl));
}

Context create_context_for_tests(const ContextCreateInfo& info, const TestHooks& hooks) {
  Context ctx = Context::create(info);
  Context::Impl& impl = impl_of(ctx);
  impl.withhold_first_tile = hooks.withhold_first_tile;
  impl.late_fallback = hooks.late_fallback;
  if (hooks.look_ahead_grid != 0) impl.look_ahead_grid = hooks.look_ahead_grid;
  impl.prefix_stride = std::max(hooks.prefix_stride, 1u);
  impl.debug_max_window_bytes = hooks.max_binding_bytes;
  if (hooks.max_binding_bytes != 0) impl.max_binding_bytes = std::min(impl.max_binding_bytes, hooks.max_binding_bytes);
  if (hooks.max_workgroup_count_x != 0) impl.max_groups_x = std::min(impl.max_groups_x, hooks.max_workgroup_count_x);
  if (const uint32_t size = hooks.required_subgroup_size; size != 0) {
    const DeviceInfo& d = impl.info;
    if (!impl.subgroup_size_control_enabled)
      throw Error(Errc::unsupported, d.name + " cannot require a subgroup size for compute shaders "
                                              "(subgroupSizeControl, VK_EXT_subgroup_size_control)");
    if (!std::has_single_bit(size) || size < d.min_subgroup_size || size > d.max_subgroup_size)
      throw Error(Errc::unsupported, "subgroup size " + std::to_string(size) + ": " + d.name + " offers powers of two from " +
                                         std::to_string(d.min_subgroup_size) + " to " +
                                         std::to_string(d.max_subgroup_size));
    impl.required_subgroup_size = size;
    // A workgroup then holds at most maxComputeWorkgroupSubgroups subgroups of that size (lavapipe: 32, so
    // 128 invocations at size 4): the plans size their workgroups within it, as within any device limit.
    if (d.max_compute_workgroup_subgroups != 0)
      impl.info.max_workgroup_invocations =
          std::min(impl.info.max_workgroup_invocations, d.max_compute_workgroup_subgroups * size);
  }
  return ctx;
}

Context Context::adopt(const AdoptInfo& adopt_info) {
  if (!adopt_info.instance || !adopt_info.physical_device || !adopt_info.device || !adopt_info.queue)
    throw Error(Errc::null_handle, "Context::adopt needs the instance, physical device, device and queue; "
                                   "one of them is VK_NULL_HANDLE");
  auto impl = std::make_unique<Impl>();
  impl->owns_device = false;
  impl->instance = adopt_info.instance;
  impl->physical_device = adopt_info.physical_device;
  impl->device = adopt_info.device;
  impl->queue = adopt_info.queue;
  impl->queue_family = adopt_info.queue_family_index;

  impl->fn = vk::Functions::instance(adopt_info.get_instance_proc_addr, adopt_info.instance);
  impl->fn.load_device(adopt_info.device);
  const vk::Functions& fn = impl->fn;
  impl->info = info_of(fn, adopt_info.instance, adopt_info.physical_device);
  impl->profile = &core::select_profile(impl->info.vendor_id, impl->info.device_id, impl->info.name);
  const std::string why = unusable_reason(fn, impl->info, adopt_info.physical_device);
  if (!why.empty()) throw Error(Errc::unsupported, "the adopted device cannot run gpuscan: " + why);

  uint32_t family_count = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(adopt_info.physical_device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(adopt_info.physical_device, &family_count, families.data());
  if (adopt_info.queue_family_index >= family_count ||
      !(families[adopt_info.queue_family_index].queueFlags & VK_QUEUE_COMPUTE_BIT))
    throw Error(Errc::invalid_argument, "queue family " + std::to_string(adopt_info.queue_family_index) +
                                            " does not exist or has no compute support");
  if (families[adopt_info.queue_family_index].timestampValidBits == 0) impl->info.timestamp_period_ns = 0;
  impl->max_groups_x = impl->info.max_workgroup_count[0];
  impl->look_ahead_grid = core::look_ahead_default_grid(impl->info.shader_cores);
  impl->max_binding_bytes = impl->info.max_storage_buffer_range;
  impl->single_pass_enabled = adopt_info.single_pass_features_enabled && impl->info.single_pass_capable;
  impl->int64_enabled = adopt_info.shader_int64_enabled && impl->info.shader_int64;
  impl->float64_enabled = adopt_info.shader_float64_enabled && impl->info.shader_float64;
  impl->extended_types_enabled = adopt_info.subgroup_extended_types_enabled && impl->info.subgroup_extended_types;
  impl->device_address_enabled = adopt_info.buffer_device_address_enabled && impl->info.buffer_device_address;
  impl->subgroup_size_control_enabled = adopt_info.subgroup_size_control_enabled && impl->info.subgroup_size_control;
  impl->full_subgroups_enabled = adopt_info.compute_full_subgroups_enabled && impl->info.compute_full_subgroups;
  impl->addressing = checked_addressing(adopt_info.addressing, impl->device_address_enabled,
                                        impl->info.buffer_device_address);
  impl->reconvergence = vk::strongest_reconvergence(impl->info, adopt_info.maximal_reconvergence_enabled,
                                                    adopt_info.subgroup_uniform_control_flow_enabled);
  impl->fence_poll = fence_poll(adopt_info.fence_poll_us, impl->fence_poll);
  impl->create_layouts();
  if (adopt_info.pipeline_cache != VK_NULL_HANDLE) impl->pipeline_cache = adopt_info.pipeline_cache;
  else impl->create_pipeline_cache({});
  return Context(std::move(impl));
}

const DeviceInfo& Context::device_info() const noexcept { return impl_->info; }
VkInstance Context::instance() const noexcept { return impl_->instance; }
VkPhysicalDevice Context::physical_device() const noexcept { return impl_->physical_device; }
VkDevice Context::device() const noexcept { return impl_->device; }
VkQueue Context::queue() const noexcept { return impl_->queue; }
uint32_t Context::queue_family_index() const noexcept { return impl_->queue_family; }

std::string Context::Impl::type_obstacle(DataType type, bool subgroup_ops, std::string_view operation) const {
  const bool int64 = type == DataType::u64 || type == DataType::i64;
  const std::string what = std::string(to_string(type)) + " " + std::string(operation) + " need ";
  if (int64 && !int64_enabled)
    return what + (info.shader_int64 ? "shaderInt64, which the adopted device was not created with "
                                       "(AdoptInfo::shader_int64_enabled)"
                                     : "shaderInt64 (64-bit integers in shaders), which " + info.name + " lacks");
  if (type == DataType::f64 && !float64_enabled)
    return what + (info.shader_float64 ? "shaderFloat64, which the adopted device was not created with "
                                         "(AdoptInfo::shader_float64_enabled)"
                                       : "shaderFloat64 (doubles in shaders), which " + info.name + " lacks");
  if (int64 && subgroup_ops && !extended_types_enabled)
    return what + "shaderSubgroupExtendedTypes (Vulkan 1.2) for subgroup operations, which " +
           (info.subgroup_extended_types ? std::string("the adopted device was not created with")
                                         : info.name + " lacks") +
           "; use the multipass algorithm with the blelloch workgroup scan (or automatic)";
  return "";
}

WorkgroupAlgorithm Context::resolve(WorkgroupAlgorithm requested, DataType type) const {
  const bool has = impl_->subgroup_arithmetic_for(type);
  if (requested == WorkgroupAlgorithm::automatic)
    return has ? WorkgroupAlgorithm::subgroup : WorkgroupAlgorithm::blelloch;
  if (requested == WorkgroupAlgorithm::subgroup && !has) {
    const std::string why = impl_->type_obstacle(type, true);
    throw Error(Errc::unsupported, why.empty() ? impl_->info.name +
                                                     " has no subgroup arithmetic (with shuffles) in compute "
                                                     "shaders; use the blelloch workgroup algorithm (or automatic)"
                                               : why);
  }
  return requested;
}

bool Context::single_pass_available() const noexcept { return impl_->single_pass_enabled; }
std::string_view Context::tuning_profile() const noexcept { return impl_->profile->name; }
std::string_view Context::tuning_profile_source() const noexcept { return impl_->profile->source; }
Addressing Context::addressing() const noexcept { return impl_->addressing; }

std::string Context::describe_addressing(DataType type, uint64_t count) const {
  const Impl& i = *impl_;
  const uint64_t bound = i.window_elements(element_size(type));
  const uint64_t addressed = i.device_address_enabled ? i.window_elements(element_size(type), true) : 0;
  const std::string bindings = "bindings (windows of " + std::to_string(bound) + " elements)";
  const std::string addresses = "device addresses (windows of " + std::to_string(addressed) + " elements)";
  const std::string why_not = i.info.buffer_device_address
                                  ? "bufferDeviceAddress not enabled on the adopted device"
                                  : "no bufferDeviceAddress on this device";
  switch (i.addressing) {
    case Addressing::bindings: return "bindings (as asked), windows of " + std::to_string(bound) + " elements";
    case Addressing::device_address: return addresses + " (as asked)";
    default: break;
  }
  if (!i.device_address_enabled) return bindings + " (" + why_not + ")";
  if (count <= bound) return bindings + ": " + std::to_string(count) + " elements fit one binding";
  return addresses + " if the input and output buffers have VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, otherwise " +
         bindings;
}
bool Context::device_address_available() const noexcept { return impl_->device_address_enabled; }
Reconvergence Context::reconvergence() const noexcept { return impl_->reconvergence; }

// Why the single-pass scan cannot run on this context, or "" if it can.
static std::string single_pass_obstacle(const Context::Impl& impl) {
  if (!impl.info.single_pass_capable)
    return impl.info.name + " lacks what the single-pass scan needs (Vulkan 1.2 with shaderInt64, "
                            "shaderBufferInt64Atomics, subgroup arithmetic, shuffles and ballot)";
  if (!impl.single_pass_enabled)
    return "the adopted device was not created with shaderInt64 and shaderBufferInt64Atomics enabled "
           "(AdoptInfo::single_pass_features_enabled)";
  return "";
}

core::DeviceCaps Context::Impl::caps(DataType type) const {
  return {core::workgroup_limits(info), subgroup_arithmetic_for(type),
          single_pass_obstacle(*this).empty() && type_obstacle(type, true).empty()};
}

static std::string power_of_two(uint64_t n) { return "2^" + std::to_string(std::bit_width(n) - 1); }
// "up to 2^28 elements", or "at every count" for a profile that sets no limit.
static std::string up_to(uint64_t limit) {
  return limit == core::no_auto_limit ? "at every count" : "up to " + power_of_two(limit) + " elements";
}

// Custom operators have no subgroup intrinsics: they run as multipass scans with Blelloch workgroup scans,
// whatever the count or the offsets, so the order of combination never depends on scheduling.
static Algorithm resolve_custom(const ScanConfig& config) {
  if (config.algorithm != Algorithm::automatic && config.algorithm != Algorithm::multipass)
    throw Error(Errc::unsupported, "custom operators run only as the multipass scan (with Blelloch workgroup scans), not " +
                                       std::string(to_string(config.algorithm)) +
                                       ": the other algorithms combine with subgroup intrinsics; use multipass or automatic");
  if (config.workgroup == WorkgroupAlgorithm::subgroup)
    throw Error(Errc::unsupported, "custom operators use the blelloch workgroup scan: subgroup intrinsics have no "
                                   "user-defined operators; use blelloch or automatic");
  return Algorithm::multipass;
}

// Every algorithm runs in place (the single-pass scan's fallback checks that its input was still there).
Algorithm Context::resolve(const ScanConfig& config, uint64_t count, bool vector_aligned) const {
  // A custom operator's element size is known once it is compiled; until then each element takes a byte at least.
  impl_->check_count(count, std::max<uint32_t>(core::element_bytes(config), 1), "scan");
  if (config.custom_op) return resolve_custom(config);
  core::check_op(config.op, config.type);
  if (const std::string why = impl_->type_obstacle(config.type); !why.empty()) throw Error(Errc::unsupported, why);
  std::string obstacle = single_pass_obstacle(*impl_);
  if (obstacle.empty()) obstacle = impl_->type_obstacle(config.type, true);
  switch (config.algorithm) {
    case Algorithm::single_pass:
      if (!obstacle.empty()) throw Error(Errc::unsupported, "single-pass scan: " + obstacle);
      break;
    case Algorithm::look_ahead:  // automatic picks it only where a profile says (core::choose_scan)
      if (!obstacle.empty()) throw Error(Errc::unsupported, "look-ahead scan: " + obstacle);
      break;
    case Algorithm::reduce_then_scan:
      if (!impl_->subgroup_arithmetic_for(config.type)) {
        const std::string why = impl_->type_obstacle(config.type, true);
        throw Error(Errc::unsupported, "reduce-then-scan: " + (why.empty() ? impl_->info.name +
                                                                                 " has no subgroup arithmetic (with "
                                                                                 "shuffles) in compute shaders; use "
                                                                                 "multipass"
                                                                           : why));
      }
      break;
    default: break;  // automatic: core::choose_scan's rule
  }
  return core::choose_scan(impl_->caps(config.type), *impl_->profile, config, count, vector_aligned).algorithm;
}

// The shape of the algorithm `automatic` (or the caller) picks (core::scan_tile_shape), or for custom
// operators the config's or the defaults.
static core::TileShape run_shape(const Context& ctx, const ScanConfig& config, uint64_t count) {
  ScanConfig chosen = config;
  if (!config.custom_op) chosen.algorithm = ctx.resolve(config, count);  // refuses what cannot run here
  return core::choose_scan(impl_of(ctx).caps(config.type), *impl_of(ctx).profile, chosen, count).shape;
}

uint32_t Context::workgroup_size(const ScanConfig& config, uint64_t count) const {
  return run_shape(*this, config, count).workgroup_size;
}

uint32_t Context::vectors_per_lane(const ScanConfig& config, uint64_t count) const {
  return run_shape(*this, config, count).vectors_per_lane;
}

std::string Context::describe_choice(const ScanConfig& config, uint64_t count) const {
  std::ostringstream s;
  const Algorithm algorithm = resolve(config, count);
  const uint32_t w = core::workgroup_size_or_default(config.workgroup_size, core::workgroup_limits(impl_->info));
  const uint32_t k =
      config.vectors_per_lane ? config.vectors_per_lane : core::default_vectors_per_lane_for(core::element_bytes(config));
  const core::TuningProfile& profile = *impl_->profile;
  const uint64_t limit = core::single_pass_auto_limit(config.type, config.kind, profile,
                                                      is_float(config.type) && config.deterministic);
  s << to_string(algorithm) << " for " << count << " elements";
  switch (algorithm) {
    case Algorithm::single_pass:
      s << ": one dispatch, chained scan with decoupled look-back and fallback, 2N bytes moved, tiles of "
        << workgroup_size(config, count) * vectors_per_lane(config, count) * 4 << " elements";
      if (is_float(config.type))
        s << (config.deterministic ? "; ordered look-back (the same bits on every run, 10-25 % slower on the H200)"
                                   : "; unordered look-back (the last bits may differ run to run)");
      break;
    case Algorithm::look_ahead:
      s << ": one dispatch, a fixed grid of workgroups striding over tiles of "
        << workgroup_size(config, count) * vectors_per_lane(config, count) * 4
        << " elements, chaining tile totals only (look-ahead), 2N bytes moved";
      break;
    case Algorithm::reduce_then_scan:
      s << ": reduce tiles, scan their totals, rescan tiles with offsets, 3N bytes moved, tiles of "
        << workgroup_size(config, count) * vectors_per_lane(config, count) * 4 << " elements";
      break;
    default: {
      const WorkgroupAlgorithm chosen =
          config.custom_op ? WorkgroupAlgorithm::blelloch : resolve(config.workgroup, config.type);
      s << ": scan blocks, scan block sums recursively, add offsets, 4N bytes moved, tiles of " << 2 * w
        << " elements, workgroup scan " << to_string(chosen);
    }
  }
  if (config.custom_op) {
    if (config.algorithm == Algorithm::automatic) s << " (automatic: custom operators run only as multipass scans)";
  } else if (config.algorithm == Algorithm::automatic) {
    std::string obstacle = single_pass_obstacle(*impl_);
    if (obstacle.empty()) obstacle = impl_->type_obstacle(config.type, true);
    if (algorithm == Algorithm::single_pass)
      s << " (automatic: the device has 64-bit buffer atomics and subgroup arithmetic and ballot, and "
           "profile "
        << profile.name << " takes single-pass from one tile " << up_to(limit) << "; "
        << profile.source << ")";
    else if (algorithm == Algorithm::look_ahead)
      s << " (automatic: profile " << profile.name << " takes the look-ahead for deterministic exclusive f32 scans "
        << "above the ordered look-back's " << power_of_two(limit) << " elements, up to "
        << power_of_two(profile.scan.look_ahead_deterministic_f32_max) << "; its fixed tree gives the same bits every run; "
        << profile.source << ")";
    else if (!obstacle.empty())
      s << " (automatic: " << obstacle << ")";
    else if (count <= uint64_t{w} * k * 4)
      s << " (automatic: one tile holds the input, so one dispatch without look-back state suffices)";
    else
      s << " (automatic: above " << power_of_two(limit) << " elements (" << to_string(config.type) << ", "
        << to_string(config.kind) << ") profile " << profile.name << " takes reduce-then-scan over single-pass; "
        << profile.source << ")";
  }
  return s.str();
}

}  // namespace gpuscan
