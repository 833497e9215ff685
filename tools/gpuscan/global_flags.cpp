#include "global_flags.hpp"

#include <iostream>

#include "gpuscan_env.hpp"
#include "pipeline_cache.hpp"

namespace gpuscan::cli {

void ValidationLog::record(MessageSeverity severity, std::string_view message) {
  if (severity != MessageSeverity::warning && severity != MessageSeverity::error) return;
  std::lock_guard lock(mutex_);
  ++count_;
  std::cerr << "gpuscan: validation " << (severity == MessageSeverity::error ? "error" : "warning") << ": "
            << message << '\n';
}

size_t ValidationLog::count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

std::string GlobalFlags::api_option() const {
  const char* name = api == Api::gl ? "gl" : "vulkan";
  return api_from_environment ? "GPUSCAN_API=" + std::string(name) : "--api " + std::string(name);
}

std::string GlobalFlags::conflict() const {
  if (api == Api::gl && !device_selector.empty())
    return "--device selects a Vulkan device and does not apply with " + api_option() +
           ": OpenGL runs on the device EGL offers first (a GPU, else Mesa's llvmpipe); leave out --device";
  return {};
}

Context GlobalFlags::open_context() {
  ContextCreateInfo info;
  info.device_selector = device_selector;
  info = env::apply(std::move(info));
  info.enable_validation = validate;
  if (pipeline_cache) info.load_pipeline_cache = load_pipeline_cache;
  if (validate)
    info.on_message = [log = &validation_log](MessageSeverity s, std::string_view m) { log->record(s, m); };
  return Context::create(info);
}

Backend GlobalFlags::open_backend() {
  if (api == Api::vulkan) return Backend(open_context(), pipeline_cache ? save_pipeline_cache : nullptr);
#if GPUSCAN_WITH_GL
  gl::ContextCreateInfo info;
  info.debug = validate;
  if (validate)
    info.on_message = [log = &validation_log](MessageSeverity s, std::string_view m) { log->record(s, m); };
  return Backend(gl::Context::create(info));
#else
  throw Error(Errc::unsupported, "this gpuscan was built without the OpenGL backend (GPUSCAN_WITH_GL=OFF)");
#endif
}

}  // namespace gpuscan::cli
