#include "gpuscan/error.hpp"

namespace gpuscan {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gpuscan"; }
  std::string message(int code) const override {
    switch (static_cast<Errc>(code)) {
      case Errc::invalid_argument: return "invalid argument";
      case Errc::null_handle: return "null Vulkan handle";
      case Errc::buffer_too_small: return "buffer too small";
      case Errc::misaligned: return "misaligned offset";
      case Errc::missing_usage: return "buffer lacks a required usage flag";
      case Errc::unsupported: return "unsupported by the device or by gpuscan";
      case Errc::too_large: return "request exceeds a limit";
      case Errc::no_device: return "no suitable Vulkan device";
      case Errc::vulkan_error: return "Vulkan call failed";
      case Errc::io_error: return "I/O error";
      case Errc::parse_error: return "malformed input";
      case Errc::timeout: return "GPU work timed out";
      case Errc::gl_error: return "OpenGL call failed";
      case Errc::compile_error: return "custom operator did not compile";
    }
    return "unknown gpuscan error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

std::error_code make_error_code(Errc e) noexcept { return {static_cast<int>(e), error_category()}; }

Error::Error(Errc code, const std::string& message, VkResult vk_result)
    : std::runtime_error(message), code_(make_error_code(code)), vk_result_(vk_result) {}

const char* vk_result_name(VkResult r) noexcept {
  switch (r) {
#define GPUSCAN_CASE(x) case x: return #x;
    GPUSCAN_CASE(VK_SUCCESS)
    GPUSCAN_CASE(VK_NOT_READY)
    GPUSCAN_CASE(VK_TIMEOUT)
    GPUSCAN_CASE(VK_INCOMPLETE)
    GPUSCAN_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    GPUSCAN_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GPUSCAN_CASE(VK_ERROR_INITIALIZATION_FAILED)
    GPUSCAN_CASE(VK_ERROR_DEVICE_LOST)
    GPUSCAN_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    GPUSCAN_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    GPUSCAN_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    GPUSCAN_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    GPUSCAN_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    GPUSCAN_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    GPUSCAN_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GPUSCAN_CASE(VK_ERROR_FRAGMENTED_POOL)
    GPUSCAN_CASE(VK_ERROR_UNKNOWN)
    GPUSCAN_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef GPUSCAN_CASE
    default: return "VkResult";
  }
}

}  // namespace gpuscan
