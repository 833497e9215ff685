// Human-readable output shared by the commands: durations, byte counts, Vulkan versions and flags.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "backend.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan::cli {

std::string format_duration(double ns);            // "812 ns", "41.3 us", "2.718 ms", "1.250 s"
std::string format_bytes(uint64_t bytes);          // "2147483648 bytes (2 GiB)"
std::string format_api_version(uint32_t version);  // "1.3.230"
// The VK_SUBGROUP_FEATURE_*_BIT names, lower case: "basic vote arithmetic ballot"; "none" for 0.
std::string format_subgroup_operations(VkSubgroupFeatureFlags operations);
// "llvmpipe (LLVM 15.0.6, 256 bits) [device 0, CPU]"
std::string describe_device(const DeviceInfo& device);
// The algorithm a scan runs (`algorithm`, as Context::resolve returned it for `config`) with its tile
// size: "single-pass, W = 256, K = 4, tiles of 4096 elements",
// "multipass (subgroup workgroup scan), W = 256, tiles of 512 elements".
std::string describe_algorithm(const Backend& ctx, const ScanConfig& config, Algorithm algorithm, uint64_t n);
// How a stream was cut: "" for one chunk or none, else
// " in 12 chunks of 43690 elements, 1048400 bytes (1024 KiB) of buffers".
std::string describe_chunks(const StreamStats& stats);
// Elements per second from a count and nanoseconds: "1234.5 Melem/s".
std::string format_rate(uint64_t elements, double ns);

}  // namespace gpuscan::cli
