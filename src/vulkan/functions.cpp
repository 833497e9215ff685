#include "vulkan/functions.hpp"

#include <string>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "gpuscan/error.hpp"

namespace gpuscan::vk {
namespace {

// vkGetInstanceProcAddr of the system's Vulkan loader, opened on first use and never closed (a loader
// unloaded while a driver's threads run crashes them); null with `why` set where there is none.
PFN_vkGetInstanceProcAddr system_loader(std::string& why) {
  struct Loaded {
    PFN_vkGetInstanceProcAddr entry = nullptr;
    std::string why;
  };
  static const Loaded loaded = [] {
    Loaded l;
#if defined(_WIN32)
    HMODULE lib = LoadLibraryA("vulkan-1.dll");
    if (lib) l.entry = reinterpret_cast<PFN_vkGetInstanceProcAddr>(GetProcAddress(lib, "vkGetInstanceProcAddr"));
    else l.why = "vulkan-1.dll could not be loaded";
#else
#if defined(__APPLE__)
    const char* names[] = {"libvulkan.1.dylib", "libvulkan.dylib", "libMoltenVK.dylib"};
#else
    const char* names[] = {"libvulkan.so.1", "libvulkan.so"};
#endif
    void* lib = nullptr;
    for (const char* name : names)
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (lib) l.entry = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    else if (const char* e = dlerror()) l.why = e;
#endif
    if (!l.entry && l.why.empty()) l.why = "the loader has no vkGetInstanceProcAddr";
    return l;
  }();
  why = loaded.why;
  return loaded.entry;
}

template <class F>
void load(F& f, PFN_vkVoidFunction p) {
  f = reinterpret_cast<F>(p);
}

}  // namespace

Functions Functions::global(PFN_vkGetInstanceProcAddr get_instance_proc_addr) {
  Functions f;
  if (!get_instance_proc_addr) {
    std::string why;
    get_instance_proc_addr = system_loader(why);
    if (!get_instance_proc_addr)
      throw Error(Errc::no_device, "no Vulkan loader could be opened (" + why +
                                       "); install one (Debian: apt-get install libvulkan1 mesa-vulkan-drivers) "
                                       "or pass your own vkGetInstanceProcAddr (get_instance_proc_addr)");
  }
  f.vkGetInstanceProcAddr = get_instance_proc_addr;
#define GPUSCAN_VK_LOAD(name) load(f.name, get_instance_proc_addr(VK_NULL_HANDLE, #name));
  GPUSCAN_VK_GLOBAL_FUNCTIONS(GPUSCAN_VK_LOAD)
#undef GPUSCAN_VK_LOAD
  load(f.vkEnumerateInstanceVersion, get_instance_proc_addr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
#define GPUSCAN_VK_CHECK(name) \
  if (!f.name) throw Error(Errc::no_device, "the Vulkan loader's vkGetInstanceProcAddr returns no " #name);
  GPUSCAN_VK_GLOBAL_FUNCTIONS(GPUSCAN_VK_CHECK)
#undef GPUSCAN_VK_CHECK
  return f;
}

Functions Functions::instance(PFN_vkGetInstanceProcAddr get_instance_proc_addr, VkInstance instance) {
  Functions f = global(get_instance_proc_addr);
#define GPUSCAN_VK_LOAD(name) load(f.name, f.vkGetInstanceProcAddr(instance, #name));
  GPUSCAN_VK_INSTANCE_FUNCTIONS(GPUSCAN_VK_LOAD)
#undef GPUSCAN_VK_LOAD
  load(f.vkCreateDebugUtilsMessengerEXT, f.vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  load(f.vkDestroyDebugUtilsMessengerEXT, f.vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
#define GPUSCAN_VK_CHECK(name)                                                                            \
  if (!f.name)                                                                                            \
    throw Error(Errc::unsupported, "the Vulkan instance offers no " #name " (gpuscan needs an instance of " \
                                   "Vulkan 1.1 or later)");
  GPUSCAN_VK_INSTANCE_FUNCTIONS(GPUSCAN_VK_CHECK)
#undef GPUSCAN_VK_CHECK
  return f;
}

void Functions::load_device(VkDevice device) {
#define GPUSCAN_VK_LOAD(name) load(name, vkGetDeviceProcAddr(device, #name));
  GPUSCAN_VK_DEVICE_FUNCTIONS(GPUSCAN_VK_LOAD)
#undef GPUSCAN_VK_LOAD
  load(vkGetBufferDeviceAddress, vkGetDeviceProcAddr(device, "vkGetBufferDeviceAddress"));
  if (!vkGetBufferDeviceAddress)  // a Vulkan 1.1 device with VK_KHR_buffer_device_address
    load(vkGetBufferDeviceAddress, vkGetDeviceProcAddr(device, "vkGetBufferDeviceAddressKHR"));
  load(vkCmdPushDescriptorSetKHR, vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetKHR"));
  load(vkGetPipelineExecutablePropertiesKHR, vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  load(vkGetPipelineExecutableStatisticsKHR, vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
#define GPUSCAN_VK_CHECK(name) \
  if (!name) throw Error(Errc::unsupported, "the Vulkan device offers no " #name);
  GPUSCAN_VK_DEVICE_FUNCTIONS(GPUSCAN_VK_CHECK)
#undef GPUSCAN_VK_CHECK
}

}  // namespace gpuscan::vk
