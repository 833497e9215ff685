// The CLI's pipeline cache between runs, so that a run builds its pipelines from what an earlier run on
// the same device compiled (ContextCreateInfo::load_pipeline_cache, Context::pipeline_cache_data): one
// file per device, $XDG_CACHE_HOME/gpuscan/pipelines-VENDOR-DEVICE-UUID.bin (else ~/.cache/gpuscan/...),
// named by the device's vendor id, device id and pipelineCacheUUID. --no-pipeline-cache turns it off.
// A cache never fails a run: a missing, unreadable, truncated or damaged file is read as no cache (the
// library checks the header against the device too), and one that cannot be written is left as it was.
// Something other than a regular file at the path (a FIFO, a device, a directory) is neither read nor
// replaced, with a warning on stderr; the file is written whole or not at all (output.hpp, replace_file).
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "gpuscan/gpuscan.hpp"

namespace gpuscan::cli {

// The cache file of `device`; empty when neither XDG_CACHE_HOME (absolute) nor HOME is set.
std::filesystem::path pipeline_cache_path(const DeviceInfo& device);

// The file's contents, or nothing when it is missing or unreadable, or its header does not start as a
// pipeline cache of `device` does.
std::vector<std::byte> load_pipeline_cache(const DeviceInfo& device) noexcept;

// Writes ctx's pipeline cache to its file (a temporary ".NAME.gpuscan-XXXXXX" renamed over it, so that
// concurrent runs never leave a torn file), unless nothing changed; failures are ignored.
void save_pipeline_cache(const Context& ctx) noexcept;

}  // namespace gpuscan::cli
