#include "session.hpp"

#include <iostream>

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

Context Session::open_context() {
  ContextCreateInfo info;
  info.device_selector = device_selector;
  info.enable_validation = validate;
  if (validate)
    info.on_message = [log = &validation_log](MessageSeverity s, std::string_view m) { log->record(s, m); };
  return Context::create(info);
}

}  // namespace gpuscan::cli
