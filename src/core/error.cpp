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

Error::Error(Errc code, const std::string& message)
    : std::system_error(make_error_code(code), message), message_(message) {}

}  // namespace gpuscan
