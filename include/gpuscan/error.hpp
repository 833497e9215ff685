// gpuscan errors: every failure is a gpuscan::Error carrying a std::error_code from gpuscan's category,
// the VkResult where Vulkan reported one, and a sentence the user can act on. The library never prints
// and never exits.
//
//   try {
//     auto out = gpuscan::exclusive_scan(ctx, std::span<const uint32_t>(in));
//   } catch (const gpuscan::Error& e) {
//     if (e.code() == gpuscan::Errc::buffer_too_small) { ... }
//     std::cerr << e.what() << '\n';
//     // "output buffer holds 1020 elements from offset 16 (buffer size 4096 bytes), the scan needs 1021"
//   }
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

#include <vulkan/vulkan_core.h>

namespace gpuscan {

enum class Errc {
  invalid_argument = 1,   // a parameter is out of range or malformed (type name, workgroup size, number)
  null_handle,            // a required Vulkan handle is VK_NULL_HANDLE
  buffer_too_small,       // a buffer does not hold `count` elements from its offset
  misaligned,             // an offset is not a multiple of the element size
  missing_usage,          // a buffer lacks a usage flag the operation needs (e.g. STORAGE_BUFFER)
  unsupported,            // the device or this version of gpuscan cannot do what was asked
  too_large,              // the request exceeds a device or format limit
  no_device,              // no Vulkan implementation or no suitable physical device
  vulkan_error,           // a Vulkan call failed; Error::vk_result() says how
  io_error,               // a file could not be read or written (CLI and file helpers)
  parse_error,            // malformed input data (CLI text input)
  timeout,                // the GPU did not finish a submission in time (a hang); the Context is unusable
  gl_error,               // an OpenGL call failed (a GL error, or a shader the driver would not compile or link)
  compile_error,          // a custom operator's GLSL did not compile (ScanConfig::custom_op); the message quotes the compiler
};

const std::error_category& error_category() noexcept;
std::error_code make_error_code(Errc e) noexcept;

class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& message, VkResult vk_result = VK_SUCCESS);

  std::error_code code() const noexcept { return code_; }
  // The VkResult behind the error, or VK_SUCCESS where Vulkan did not report one.
  VkResult vk_result() const noexcept { return vk_result_; }

 private:
  std::error_code code_;
  VkResult vk_result_;
};

// The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY"), for messages.
const char* vk_result_name(VkResult result) noexcept;

}  // namespace gpuscan

template <>
struct std::is_error_code_enum<gpuscan::Errc> : std::true_type {};
