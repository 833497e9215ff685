// What gpuscan's programs -- the CLI, the tests, the benchmarks, the Python module and the MPI tools -- read
// from the environment and hand to the library as options. The library itself reads no variable and
// prints nothing; these do it for the programs, header-only, so each reads the variables the same way:
//   GPUSCAN_DEVICE          ContextCreateInfo::device_selector, where the program was given none
//   GPUSCAN_TIMEOUT_MS      ContextCreateInfo::timeout_ms (a whole number of milliseconds, 1 to 4294967295)
//   GPUSCAN_FENCE_POLL_US   ContextCreateInfo::fence_poll_us
//   GPUSCAN_PIPELINE_STATS  ContextCreateInfo::on_pipeline_statistics: one line per pipeline on stderr
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "gpuscan/vulkan.hpp"

namespace gpuscan::env {

// The variable's value, or "" when it is unset.
inline std::string_view get(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string_view(value) : std::string_view();
}

// A whole number from 0 to 4294967295 in `name`, nullopt when unset or empty. Malformed text is refused,
// not read as far as its digits go: a typo that left the default, or cut "5e3" to 5, would show only
// later, as a long hang or a spurious timeout. `rule` completes the message.
inline std::optional<uint32_t> get_u32(const char* name, const char* rule) {
  const std::string_view text = get(name);
  if (text.empty()) return std::nullopt;
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw Error(Errc::invalid_argument, std::string(name) + " is '" + std::string(text) + "': " + rule);
  return value;
}

// GPUSCAN_TIMEOUT_MS (0 is refused: it would mean the default).
inline std::optional<uint32_t> timeout_ms() {
  constexpr const char* rule =
      "it must be a whole number of milliseconds from 1 to 4294967295 (unset, convenience calls wait 60000 ms)";
  const std::optional<uint32_t> ms = get_u32("GPUSCAN_TIMEOUT_MS", rule);
  if (ms == 0u) throw Error(Errc::invalid_argument, "GPUSCAN_TIMEOUT_MS is '0': " + std::string(rule));
  return ms;
}

// "gpuscan pipeline scan_tiles.u32 256,0,... [Compute Shader] Registers=32 ...": the statistics of one
// pipeline executable as one line on stderr (docs/bench.md).
inline void print_pipeline_statistics(const PipelineStatistics& s) {
  std::string line = "gpuscan pipeline " + s.variant;
  for (size_t i = 0; i < s.constants.size(); ++i) line += (i ? "," : " ") + std::to_string(s.constants[i]);
  line += " [" + s.executable + "]";
  for (const PipelineStatistic& statistic : s.statistics) {
    line += " " + statistic.name + "=";
    std::visit(
        [&](auto v) {
          if constexpr (std::is_same_v<decltype(v), bool>) {
            line += v ? "1" : "0";
          } else if constexpr (std::is_same_v<decltype(v), double>) {
            char text[32];
            std::snprintf(text, sizeof text, "%g", v);
            line += text;
          } else {
            line += std::to_string(v);
          }
        },
        statistic.value);
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

// `info` with the variables applied where set: a device selector and a statistics callback only where
// `info` has none.
// Throws Errc::invalid_argument for a malformed GPUSCAN_TIMEOUT_MS or GPUSCAN_FENCE_POLL_US, before any
// Vulkan call.
inline ContextCreateInfo apply(ContextCreateInfo info) {
  if (info.device_selector.empty()) info.device_selector = std::string(get("GPUSCAN_DEVICE"));
  if (const std::optional<uint32_t> ms = timeout_ms()) info.timeout_ms = *ms;
  if (const std::optional<uint32_t> us = get_u32("GPUSCAN_FENCE_POLL_US", "it must be a whole number of microseconds"))
    info.fence_poll_us = us;
  if (!info.on_pipeline_statistics && !get("GPUSCAN_PIPELINE_STATS").empty())
    info.on_pipeline_statistics = print_pipeline_statistics;
  return info;
}

}  // namespace gpuscan::env
