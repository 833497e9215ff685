#include "format.hpp"

#include <cstdio>
#include <utility>

#include "options.hpp"

namespace gpuscan::cli {

std::string format_duration(double ns) {
  char buffer[64];
  if (ns < 1e3)
    std::snprintf(buffer, sizeof buffer, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buffer, sizeof buffer, "%.1f us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buffer, sizeof buffer, "%.3f ms", ns / 1e6);
  else
    std::snprintf(buffer, sizeof buffer, "%.3f s", ns / 1e9);
  return buffer;
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::string text = std::to_string(bytes) + " bytes";
  if (unit > 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, " (%.4g %s)", value, units[unit]);
    text += buffer;
  }
  return text;
}

std::string format_api_version(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) +
         "." + std::to_string(VK_API_VERSION_PATCH(version));
}

std::string format_subgroup_operations(VkSubgroupFeatureFlags operations) {
  static const std::pair<VkSubgroupFeatureFlags, const char*> names[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle-relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"},
      {VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV, "partitioned-nv"},
  };
  std::string text;
  VkSubgroupFeatureFlags known = 0;
  for (const auto& [bit, name] : names) {
    known |= bit;
    if ((operations & bit) == 0) continue;
    if (!text.empty()) text += ' ';
    text += name;
  }
  if (const VkSubgroupFeatureFlags other = operations & ~known) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "0x%x", static_cast<unsigned>(other));
    text += (text.empty() ? "other bits " : " other bits ") + std::string(buffer);
  }
  return text.empty() ? "none" : text;
}

std::string describe_device(const DeviceInfo& device) {
  return device.name + " [device " + std::to_string(device.index) + ", " + std::string(gpuscan::to_string(device.type)) +
         "]";
}

// `n`: the elements of one scan (a chunk's, when streamed); the default K may depend on it.
std::string describe_algorithm(const Backend& ctx, const ScanConfig& config, Algorithm algorithm, uint64_t n) {
  std::string text(to_string(algorithm));
  if (algorithm == Algorithm::multipass)
    text += " (" +
            std::string(to_string(config.custom_op ? WorkgroupAlgorithm::blelloch  // custom operators' only one
                                                   : ctx.resolve(config.workgroup, config.type))) +
            " workgroup scan)";
  const uint32_t w = ctx.workgroup_size(config, n);
  text += ", W = " + std::to_string(w);
  const uint32_t k = ctx.vectors_per_lane(config, n);
  if (algorithm != Algorithm::multipass) text += ", K = " + std::to_string(k);
  return text + ", tiles of " + std::to_string(tile_elements(config, algorithm, k, w)) + " elements";
}

std::string format_rate(uint64_t elements, double ns) {
  if (ns <= 0) return "- Melem/s";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f Melem/s", static_cast<double>(elements) / ns * 1e3);
  return buffer;
}

std::string describe_chunks(const StreamStats& stats) {
  if (stats.chunks <= 1) return "";
  return " in " + std::to_string(stats.chunks) + " chunks of " + std::to_string(stats.chunk_elements) + " elements, " +
         format_bytes(stats.memory_bytes) + " of buffers";
}

}  // namespace gpuscan::cli
