// The global flags every command shares (--device, --validate, --api) and the record of validation
// messages. Commands open their Context through GlobalFlags::open_context so that both are honoured.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include "backend.hpp"
#include "gpuscan/gpuscan.hpp"

namespace gpuscan::cli {

// Validation-layer warnings and errors. Each is printed to stderr as it arrives (from Vulkan's
// threads, hence the mutex); main() turns a non-zero count into a failing exit code.
class ValidationLog {
 public:
  void record(MessageSeverity severity, std::string_view message);
  size_t count() const;

 private:
  mutable std::mutex mutex_;
  size_t count_ = 0;
};

struct GlobalFlags {
  std::string device_selector;  // --device; "" = GPUSCAN_DEVICE or gpuscan's default order
  bool pipeline_cache = true;   // keep the Vulkan pipeline cache between runs (pipeline_cache.hpp); --no-pipeline-cache
  bool validate = false;        // --validate or GPUSCAN_VALIDATE set (and not "0")
  Api api = Api::vulkan;        // --api; GPUSCAN_API
  bool api_from_environment = false;  // GPUSCAN_API chose `api`, not --api
  ValidationLog validation_log; // outlives every Context opened here

  // How the user chose the API, for messages: "--api gl" or "GPUSCAN_API=gl".
  std::string api_option() const;
  // "" when the global flags agree; otherwise the usage error. --device picks among Vulkan devices, and
  // gpuscan's GL context runs on the device EGL offers first, so --device with --api gl is refused
  // rather than ignored (GPUSCAN_DEVICE, often exported for a whole shell, is ignored on GL).
  std::string conflict() const;

  // The Vulkan context, with the options the environment gives (gpuscan_env.hpp: GPUSCAN_DEVICE where
  // --device is not given, GPUSCAN_TIMEOUT_MS, ...) and the pipeline cache file's contents.
  Context open_context();
  // A context of the chosen API. For GL: gpuscan's own EGL context on EGL's first device (the first
  // hardware one, else Mesa's surfaceless llvmpipe), a debug context whose KHR_debug errors and warnings
  // count as validation messages with --validate. A Vulkan one saves its pipeline cache when it closes.
  Backend open_backend();
};

}  // namespace gpuscan::cli
