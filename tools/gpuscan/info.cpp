// `gpuscan info`: every Vulkan device with the properties gpuscan cares about, the one it picks, which
// algorithm a scan would use there and why, and (with --n) the passes of the scan plan.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "format.hpp"
#include "options.hpp"

namespace gpuscan::cli {
namespace {

struct InfoOptions {
  std::optional<uint64_t> n;
  DataType type = DataType::u32;
  bool inclusive = false;
  AlgorithmOptions algorithm;
};

// The element count `info` describes the choice for when --n is not given.
constexpr uint64_t default_choice_count = uint64_t{1} << 24;

void print_device(std::ostream& out, const DeviceInfo& d, bool picked) {
  out << (picked ? "* " : "  ") << "[" << d.index << "] " << d.name << '\n';
  const auto row = [&out](const char* label) -> std::ostream& {
    out << "      " << label;
    for (size_t i = std::char_traits<char>::length(label); i < 28; ++i) out << ' ';
    return out;
  };
  row("type") << gpuscan::to_string(d.type) << '\n';
  row("API version") << format_api_version(d.api_version) << '\n';
  row("subgroup size") << d.subgroup_size << '\n';
  row("subgroup operations") << format_subgroup_operations(d.subgroup_operations) << '\n';
  row("push descriptors") << (d.push_descriptors ? "yes" : "no (gpuscan needs VK_KHR_push_descriptor)")
                          << '\n';
  row("single-pass capable") << (d.single_pass_capable ? "yes"
                                                        : "no (needs Vulkan 1.2 with shaderInt64, "
                                                          "shaderBufferInt64Atomics, subgroup arithmetic and ballot)")
                             << '\n';
  row("max workgroup invocations") << d.max_workgroup_invocations << '\n';
  row("max workgroup count") << d.max_workgroup_count[0] << " x " << d.max_workgroup_count[1] << " x "
                             << d.max_workgroup_count[2] << '\n';
  row("max storage buffer range") << format_bytes(d.max_storage_buffer_range) << '\n';
  row("min storage offset align") << format_bytes(d.min_storage_buffer_offset_alignment) << '\n';
  row("shared memory") << format_bytes(d.max_shared_memory_bytes) << '\n';
  row("timestamp period");
  if (d.timestamp_period_ns > 0)
    out << d.timestamp_period_ns << " ns\n";
  else
    out << "none (the compute queue has no timestamps; GPU times are not measured)\n";
}

std::string selection_reason(const Session& session) {
  if (!session.device_selector.empty()) return "chosen by --device '" + session.device_selector + "'";
  if (const char* env = std::getenv("GPUSCAN_DEVICE"); env && *env)
    return "chosen by GPUSCAN_DEVICE='" + std::string(env) + "'";
  return "default order: discrete GPU, integrated, virtual, CPU; set --device or GPUSCAN_DEVICE to change";
}

int run_info(const InfoOptions& options, Session& session) {
  auto& out = std::cout;
  const auto devices = Context::list_devices();

  // Open the context before printing so the list can mark the pick; if no device qualifies, still
  // print the list (it shows why), then report the error.
  std::optional<Context> ctx;
  std::optional<Error> pick_error;
  try {
    ctx.emplace(session.open_context());
  } catch (const Error& e) {
    pick_error = e;
  }

  out << "gpuscan " << version << ": " << devices.size() << " Vulkan device" << (devices.size() == 1 ? "" : "s")
      << " (* = the one gpuscan picks)\n";
  for (const auto& d : devices) print_device(out, d, ctx && ctx->device_info().index == d.index);
  if (pick_error) {
    out << std::flush;
    throw *pick_error;
  }
  const DeviceInfo& picked = ctx->device_info();
  out << "\ngpuscan picks: " << describe_device(picked) << "\n  (" << selection_reason(session) << ")\n";

  ScanConfig config{.type = options.type, .kind = options.inclusive ? ScanKind::inclusive : ScanKind::exclusive};
  options.algorithm.apply(config);
  const uint64_t n = options.n.value_or(default_choice_count);
  out << "\nalgorithm: " << ctx->describe_choice(config, n) << '\n';

  if (options.n) {
    // describe_scan_plan's first line names the algorithm and W (and K); the passes follow.
    const Algorithm algorithm = ctx->resolve(config, n);
    const std::string listing = describe_scan_plan(*ctx, n, config);
    out << "\nplan for n = " << n << " (" << to_string(config.type) << ", " << to_string(config.kind)
        << ", tiles of " << tile_elements(config, algorithm) << " elements; temp buffer "
        << format_bytes(scan_temp_requirements(*ctx, n, config).size) << "):\n"
        << listing;
    if (!listing.empty() && !listing.ends_with('\n')) out << '\n';
  }
  return 0;
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand(
      "info", "List the Vulkan devices, mark the one gpuscan picks, and say how it would scan there");
  sub->add_option_function<uint64_t>(
      "--n,-n", [options](const uint64_t& n) { options->n = n; },
      "say which algorithm a scan of N elements would use (default: 2^24) and print its plan (passes, "
      "grids, barriers)")
      ->check(unsigned_integer())
      ->type_name("N");
  add_type_option(*sub, options->type);
  sub->add_flag("--inclusive", options->inclusive, "plan an inclusive scan (default: exclusive)");
  add_algorithm_options(*sub, options->algorithm);
  return {sub, [options](Session& session) { return run_info(*options, session); }};
}

}  // namespace gpuscan::cli
