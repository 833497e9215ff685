#include "gl_test_support.hpp"

#include <mutex>

namespace gpuscan::test {
namespace {

std::mutex errors_mutex;
std::vector<std::string> errors;

}  // namespace

gl::Context& gl_context() {
  static gl::Context ctx = [] {
    gl::ContextCreateInfo info;
    info.debug = true;
    info.on_message = [](MessageSeverity severity, std::string_view message) {
      if (severity != MessageSeverity::error) return;
      std::lock_guard lock(errors_mutex);
      errors.emplace_back(message);
    };
    return gl::Context::create(info);
  }();
  return ctx;
}

const gl::Functions& gl_functions() { return impl_of(gl_context()).gl; }

std::vector<std::string> take_gl_errors() {
  std::lock_guard lock(errors_mutex);
  return std::exchange(errors, {});
}

}  // namespace gpuscan::test
