// An engine that loads Vulkan itself: built with VK_NO_PROTOTYPES and volk, linked with no Vulkan loader
// (only libgpuscan, which links none either). It creates its instance and device through volk, adopts them
// with its own vkGetInstanceProcAddr, records a scan into its own command buffer and submits it with volk's
// functions, then runs gpuscan's scan and sort convenience calls; every result is checked against the CPU,
// on random data (GPUSCAN_SEED replays a run). The validation layer is on where installed, and any warning
// or error fails the run.
#include <dlfcn.h>
#include <volk.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpuscan/gpuscan.hpp>

namespace {

int validation_messages = 0;

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  ++validation_messages;
  std::cerr << "validation: " << (data && data->pMessage ? data->pMessage : "") << '\n';
  return VK_FALSE;
}

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(r));
}

bool has_layer(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) { return !std::strcmp(l.layerName, name); });
}

uint32_t memory_type(VkPhysicalDevice physical, uint32_t allowed) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical, &props);
  constexpr VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) return i;
  throw std::runtime_error("no host-visible coherent memory type");
}

// The engine's own buffer: host-visible, mapped.
struct AppBuffer {
  VkDevice device = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  VkBufferUsageFlags usage = 0;
  void* mapped = nullptr;
  AppBuffer(VkPhysicalDevice physical, VkDevice d, VkDeviceSize bytes, VkBufferUsageFlags u)
      : device(d), size(std::max<VkDeviceSize>(bytes, 4)), usage(u) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    check(vkCreateBuffer(device, &info, nullptr, &buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memory_type(physical, req.memoryTypeBits);
    check(vkAllocateMemory(device, &alloc, nullptr, &memory), "vkAllocateMemory");
    check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
    check(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
  }
  AppBuffer(const AppBuffer&) = delete;
  AppBuffer& operator=(const AppBuffer&) = delete;
  ~AppBuffer() {
    vkDestroyBuffer(device, buffer, nullptr);
    vkFreeMemory(device, memory, nullptr);
  }
  gpuscan::BufferView view() const { return {buffer, size, usage, 0}; }
};

// Scans `in` (exclusive sum) with gpuscan recorded into the engine's command buffer, submitted by the engine.
std::vector<uint32_t> scan_in_app_commands(const gpuscan::Context& ctx, VkPhysicalDevice physical, VkDevice device,
                                           VkQueue queue, uint32_t family, const std::vector<uint32_t>& in) {
  const uint64_t n = in.size();
  constexpr VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const gpuscan::ScanConfig config{};
  const gpuscan::TempRequirements temp_need = gpuscan::scan_temp_requirements(ctx, n, config);
  AppBuffer input(physical, device, n * 4, storage), output(physical, device, n * 4, storage);
  AppBuffer temp(physical, device, temp_need.size, temp_need.usage | storage);
  if (n) std::memcpy(input.mapped, in.data(), n * 4);
  std::memset(output.mapped, 0xA5, output.size);  // poisoned: every element must be written

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = family;
  VkCommandPool pool;
  check(vkCreateCommandPool(device, &pool_info, nullptr, &pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(device, &alloc, &cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  const VkMemoryBarrier host_to_compute{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_HOST_WRITE_BIT,
                                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &host_to_compute,
                       0, nullptr, 0, nullptr);
  gpuscan::record_scan(ctx, cmd, {.config = config, .count = n, .input = input.view(), .output = output.view(),
                                  .temp = temp.view()});
  const VkMemoryBarrier compute_to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                                        VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &compute_to_host,
                       0, nullptr, 0, nullptr);
  check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  check(vkCreateFence(device, &fence_info, nullptr, &fence), "vkCreateFence");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  check(vkQueueSubmit(queue, 1, &submit, fence), "vkQueueSubmit");
  check(vkWaitForFences(device, 1, &fence, VK_TRUE, 60'000'000'000ull), "vkWaitForFences");
  vkDestroyFence(device, fence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  std::vector<uint32_t> out(n);
  if (n) std::memcpy(out.data(), output.mapped, n * 4);
  return out;
}

}  // namespace

int main() {
  // Neither this program nor libgpuscan links a Vulkan loader: none is loaded before volk opens one.
  if (dlopen("libvulkan.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    std::cerr << "a Vulkan loader is linked into the program before volkInitialize\n";
    return 1;
  }
  if (volkInitialize() != VK_SUCCESS) {
    std::cerr << "volkInitialize: no Vulkan loader\n";
    return 1;
  }
  const char* seed_env = std::getenv("GPUSCAN_SEED");
  const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : std::random_device{}();
  std::cout << "GPUSCAN_SEED=" << seed << '\n';
  std::mt19937_64 rng(seed);
  int failures = 0;
  try {
    const bool validation = has_layer("VK_LAYER_KHRONOS_validation");
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = std::min<uint32_t>(volkGetInstanceVersion(), VK_API_VERSION_1_3);
    const char* layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    messenger_info.pfnUserCallback = on_message;
    VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instance_info.pApplicationInfo = &app;
    if (validation) {
      instance_info.enabledLayerCount = 1;
      instance_info.ppEnabledLayerNames = layers;
      instance_info.enabledExtensionCount = 1;
      instance_info.ppEnabledExtensionNames = extensions;
      instance_info.pNext = &messenger_info;
    }
    VkInstance instance;
    check(vkCreateInstance(&instance_info, nullptr, &instance), "vkCreateInstance");
    volkLoadInstance(instance);
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (validation) check(vkCreateDebugUtilsMessengerEXT(instance, &messenger_info, nullptr, &messenger), "messenger");

    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> physicals(count);
    vkEnumeratePhysicalDevices(instance, &count, physicals.data());
    if (physicals.empty()) throw std::runtime_error("no physical device");
    const VkPhysicalDevice physical = physicals.front();
    const gpuscan::DeviceInfo info = gpuscan::device_info_of(instance, physical, vkGetInstanceProcAddr);
    std::cout << "device: " << info.name << ", subgroup size " << info.subgroup_size
              << (validation ? ", validation on" : ", validation layer not installed") << '\n';

    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> family_props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, family_props.data());
    uint32_t family = 0;
    while (family < families && !(family_props[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    if (family == families) throw std::runtime_error("no compute queue");

    const gpuscan::DeviceRequirements need(instance, physical,
                                           {.validation_layer = validation, .get_instance_proc_addr = vkGetInstanceProcAddr});
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    const std::vector<const char*> device_extensions(need.extensions().begin(), need.extensions().end());
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = need.features();
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = static_cast<uint32_t>(device_extensions.size());
    device_info.ppEnabledExtensionNames = device_extensions.data();
    VkDevice device;
    check(vkCreateDevice(physical, &device_info, nullptr, &device), "vkCreateDevice");
    volkLoadDevice(device);
    VkQueue queue;
    vkGetDeviceQueue(device, family, 0, &queue);
    {
      gpuscan::AdoptInfo adopt{instance, physical, device, queue, family};
      need.apply(adopt);
      adopt.get_instance_proc_addr = vkGetInstanceProcAddr;
      const gpuscan::Context ctx = gpuscan::Context::adopt(adopt);

      const std::vector<uint64_t> sizes = {0, 1, 255, 256, 257, 4095, 4096, 4097, 100'003 + rng() % 1000};
      for (uint64_t n : sizes) {
        std::vector<uint32_t> in(n);
        for (uint32_t& v : in) v = static_cast<uint32_t>(rng());
        std::vector<uint32_t> expected(n);
        std::exclusive_scan(in.begin(), in.end(), expected.begin(), uint32_t{0});
        if (scan_in_app_commands(ctx, physical, device, queue, family, in) != expected)
          ++failures, std::cerr << "record_scan into the engine's command buffer, n=" << n << ": wrong\n";
        if (gpuscan::exclusive_scan(ctx, std::span<const uint32_t>(in)) != expected)
          ++failures, std::cerr << "exclusive_scan, n=" << n << ": wrong\n";
        std::vector<uint32_t> sorted = in;
        std::sort(sorted.begin(), sorted.end());
        if (gpuscan::sort(ctx, std::span<const uint32_t>(in)) != sorted)
          ++failures, std::cerr << "sort, n=" << n << ": wrong\n";
      }
    }
    vkDestroyDevice(device, nullptr);
    if (messenger) vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
    vkDestroyInstance(instance, nullptr);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
  if (validation_messages) std::cerr << validation_messages << " validation message(s)\n";
  if (failures || validation_messages) return 1;
  std::cout << "scans and sorts through volk's loader: all correct\n";
  return 0;
}
