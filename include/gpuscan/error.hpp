// gpuscan errors: every failure is a gpuscan::Error, a std::system_error whose code() is in gpuscan's
// category and whose what() is a sentence the user can act on. Where Vulkan reported a VkResult, the
// error is a gpuscan::VulkanError (gpuscan/vulkan/error.hpp), which carries it. The library never prints
// and never exits. This header names no graphics API.
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
  vulkan_error,           // a Vulkan call failed; VulkanError::result() says how
  io_error,               // a file could not be read or written (CLI and file helpers)
  parse_error,            // malformed input data (CLI text input)
  timeout,                // the GPU did not finish a submission in time (a hang); the Context is unusable
  gl_error,               // an OpenGL call failed (a GL error, or a shader the driver would not compile or link)
  compile_error,          // a custom operator's GLSL did not compile (ScanConfig::custom_op); the message quotes the compiler
};

const std::error_category& error_category() noexcept;
std::error_code make_error_code(Errc e) noexcept;

class Error : public std::system_error {
 public:
  Error(Errc code, const std::string& message);

  // The message alone: std::system_error's own what() would append the category's text for the code.
  const char* what() const noexcept override { return message_.what(); }

 private:
  std::runtime_error message_;  // a shared string: copying an exception must not throw
};

}  // namespace gpuscan

template <>
struct std::is_error_code_enum<gpuscan::Errc> : std::true_type {};
