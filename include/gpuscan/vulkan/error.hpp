// The Vulkan side of gpuscan's errors: a gpuscan::Error that also carries the VkResult a Vulkan call
// returned. Catch gpuscan::Error for every failure; catch (or dynamic_cast to) VulkanError where the
// VkResult matters.
//
//   try {
//     auto ctx = gpuscan::Context::create();
//   } catch (const gpuscan::VulkanError& e) {
//     std::cerr << e.what() << " (" << gpuscan::vk_result_name(e.result()) << ")\n";
//     // "no Vulkan driver found (...) (VK_ERROR_INCOMPATIBLE_DRIVER)"
//   } catch (const gpuscan::Error& e) {
//     std::cerr << e.what() << '\n';
//   }
#pragma once

#include <string>

#include <vulkan/vulkan_core.h>

#include "gpuscan/error.hpp"

namespace gpuscan {

class VulkanError : public Error {
 public:
  VulkanError(Errc code, const std::string& message, VkResult result) : Error(code, message), result_(result) {}

  // What the failed Vulkan call returned (VK_ERROR_DEVICE_LOST, ...; VK_TIMEOUT for Errc::timeout).
  VkResult result() const noexcept { return result_; }

 private:
  VkResult result_;
};

// The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY"), for messages.
const char* vk_result_name(VkResult result) noexcept;

}  // namespace gpuscan
