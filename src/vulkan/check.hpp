// Turns a failed Vulkan call into a gpuscan::VulkanError naming the call.
#pragma once

#include <string>

#include "gpuscan/vulkan/error.hpp"

namespace gpuscan::vk {

inline void check(VkResult result, const char* what) {
  if (result != VK_SUCCESS)
    throw VulkanError(Errc::vulkan_error, std::string(what) + " failed: " + vk_result_name(result), result);
}

}  // namespace gpuscan::vk
