// Every Vulkan entry point gpuscan calls, loaded at run time: the library is compiled with VK_NO_PROTOTYPES
// and has no link-time Vulkan symbol, so an application that loads Vulkan itself (volk, its own
// vkGetInstanceProcAddr) hands gpuscan that entry point and nothing else is needed; without one gpuscan
// opens the system loader (libvulkan.so.1, vulkan-1.dll) on first use.
//
// Device-level functions come from vkGetDeviceProcAddr (the driver's own, without the loader's
// trampoline), instance-level ones from vkGetInstanceProcAddr. Each Context holds its table, and every
// gpuscan object that calls Vulkan reaches it through the Context.
#pragma once

#include <vulkan/vulkan_core.h>

namespace gpuscan::vk {

// Entry points that need no instance (vkGetInstanceProcAddr(VK_NULL_HANDLE, ...)).
#define GPUSCAN_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                  \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkEnumerateInstanceLayerProperties)

#define GPUSCAN_VK_INSTANCE_FUNCTIONS(X)       \
  X(vkDestroyInstance)                         \
  X(vkEnumeratePhysicalDevices)                \
  X(vkGetPhysicalDeviceProperties)             \
  X(vkGetPhysicalDeviceProperties2)            \
  X(vkGetPhysicalDeviceFeatures)               \
  X(vkGetPhysicalDeviceFeatures2)              \
  X(vkGetPhysicalDeviceMemoryProperties)       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)  \
  X(vkEnumerateDeviceExtensionProperties)      \
  X(vkCreateDevice)                            \
  X(vkGetDeviceProcAddr)

#define GPUSCAN_VK_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                   \
  X(vkGetDeviceQueue)                  \
  X(vkDeviceWaitIdle)                  \
  X(vkCreateBuffer)                    \
  X(vkDestroyBuffer)                   \
  X(vkGetBufferMemoryRequirements)     \
  X(vkAllocateMemory)                  \
  X(vkFreeMemory)                      \
  X(vkBindBufferMemory)                \
  X(vkMapMemory)                       \
  X(vkCreateShaderModule)              \
  X(vkDestroyShaderModule)             \
  X(vkCreateComputePipelines)          \
  X(vkDestroyPipeline)                 \
  X(vkCreatePipelineCache)             \
  X(vkDestroyPipelineCache)            \
  X(vkGetPipelineCacheData)            \
  X(vkCreatePipelineLayout)            \
  X(vkDestroyPipelineLayout)           \
  X(vkCreateDescriptorSetLayout)       \
  X(vkDestroyDescriptorSetLayout)      \
  X(vkCreateCommandPool)               \
  X(vkDestroyCommandPool)              \
  X(vkResetCommandPool)                \
  X(vkAllocateCommandBuffers)          \
  X(vkBeginCommandBuffer)              \
  X(vkEndCommandBuffer)                \
  X(vkCreateFence)                     \
  X(vkDestroyFence)                    \
  X(vkResetFences)                     \
  X(vkGetFenceStatus)                  \
  X(vkWaitForFences)                   \
  X(vkQueueSubmit)                     \
  X(vkCreateQueryPool)                 \
  X(vkDestroyQueryPool)                \
  X(vkGetQueryPoolResults)             \
  X(vkCmdResetQueryPool)               \
  X(vkCmdWriteTimestamp)               \
  X(vkCmdPipelineBarrier)              \
  X(vkCmdFillBuffer)                   \
  X(vkCmdUpdateBuffer)                 \
  X(vkCmdCopyBuffer)                   \
  X(vkCmdBindPipeline)                 \
  X(vkCmdPushConstants)                \
  X(vkCmdDispatch)                     \
  X(vkCmdDispatchIndirect)

struct Functions {
#define GPUSCAN_VK_MEMBER(name) PFN_##name name = nullptr;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  GPUSCAN_VK_GLOBAL_FUNCTIONS(GPUSCAN_VK_MEMBER)
  GPUSCAN_VK_INSTANCE_FUNCTIONS(GPUSCAN_VK_MEMBER)
  GPUSCAN_VK_DEVICE_FUNCTIONS(GPUSCAN_VK_MEMBER)
#undef GPUSCAN_VK_MEMBER
  // Optional ones, null where absent: vkEnumerateInstanceVersion (a Vulkan 1.0 loader lacks it),
  // VK_EXT_debug_utils' (only with validation), Vulkan 1.2's device addresses (only where enabled), push
  // descriptors (checked when the Context is made) and pipeline statistics (only where enabled).
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
  PFN_vkGetBufferDeviceAddress vkGetBufferDeviceAddress = nullptr;
  PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSetKHR = nullptr;
  PFN_vkGetPipelineExecutablePropertiesKHR vkGetPipelineExecutablePropertiesKHR = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR = nullptr;

  // The global functions through `get_instance_proc_addr`, or through the system loader's where it is
  // null (opened once per process and kept). Errc::no_device where there is no loader to open, or where
  // the entry point returns none of them.
  static Functions global(PFN_vkGetInstanceProcAddr get_instance_proc_addr);
  // The global and the instance functions of `instance`. Errc::unsupported where a Vulkan 1.1 one is
  // missing (an instance created for Vulkan 1.0).
  static Functions instance(PFN_vkGetInstanceProcAddr get_instance_proc_addr, VkInstance instance);
  // Adds `device`'s functions. Errc::unsupported where a required one is missing.
  void load_device(VkDevice device);
};

}  // namespace gpuscan::vk
