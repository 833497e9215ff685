// `gpuscan info`: every Vulkan device with the properties gpuscan cares about, the one it picks, which
// algorithm a scan would use there and why, and (with --n) the passes of the scan plan. With --json the
// same as one JSON document on stdout.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "format.hpp"
#include "json.hpp"
#include "options.hpp"
#include "output.hpp"

namespace gpuscan::cli {
namespace {

struct InfoOptions {
  std::optional<uint64_t> n;
  DataType type = DataType::u32;
  bool inclusive = false;
  AlgorithmOptions algorithm;
  bool json = false;
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
  row("subgroup size") << d.subgroup_size;
  if (d.min_subgroup_size != d.max_subgroup_size)
    out << " (" << d.min_subgroup_size << " to " << d.max_subgroup_size << " per pipeline)";
  out << (d.subgroup_size_control ? ", sizes can be required" : "")
      << (d.compute_full_subgroups ? ", full subgroups" : "") << '\n';
  row("subgroup operations") << format_subgroup_operations(d.subgroup_operations) << '\n';
  row("push descriptors") << (d.push_descriptors ? "yes" : "no (gpuscan needs VK_KHR_push_descriptor)")
                          << '\n';
  row("single-pass capable") << (d.single_pass_capable ? "yes"
                                                        : "no (needs Vulkan 1.2 with shaderInt64, "
                                                          "shaderBufferInt64Atomics, subgroup arithmetic, "
                                                          "shuffles and ballot)")
                             << '\n';
  row("64-bit types") << "u64/i64 " << (d.shader_int64 ? "yes" : "no (shaderInt64)")
                      << (d.shader_int64 && !d.subgroup_extended_types ? " (multipass blelloch only: no shaderSubgroupExtendedTypes)" : "")
                      << ", f64 " << (d.shader_float64 ? "yes" : "no (shaderFloat64)") << '\n';
  row("max workgroup invocations") << d.max_workgroup_invocations << '\n';
  row("max workgroup count") << d.max_workgroup_count[0] << " x " << d.max_workgroup_count[1] << " x "
                             << d.max_workgroup_count[2] << '\n';
  row("max storage buffer range") << format_bytes(d.max_storage_buffer_range) << '\n';
  row("buffer device address") << (d.buffer_device_address ? "yes (scans past one binding without its limit)"
                                                           : "no (Vulkan 1.2 bufferDeviceAddress; bindings only)")
                               << '\n';
  row("min storage offset align") << format_bytes(d.min_storage_buffer_offset_alignment) << '\n';
  row("shared memory") << format_bytes(d.max_shared_memory_bytes) << '\n';
  row("shader cores");
  if (d.shader_cores != 0)
    out << d.shader_cores << " (look-ahead grid " << gpuscan::look_ahead_default_grid(d.shader_cores) << ")\n";
  else
    out << "not reported (look-ahead grid " << gpuscan::look_ahead_default_grid(0) << ")\n";
  row("largest memory heap") << format_bytes(d.largest_memory_heap_bytes) << " (no scan's data can be larger)\n";
  row("timestamp period");
  if (d.timestamp_period_ns > 0)
    out << d.timestamp_period_ns << " ns\n";
  else
    out << "none (the compute queue has no timestamps; GPU times are not measured)\n";
}

// "maximal | subgroup-uniform | none", and what it means on this device.
std::string describe_reconvergence(const Context& ctx) {
  const Reconvergence r = ctx.reconvergence();
  const std::string name(to_string(r));
  if (r == Reconvergence::maximal)
    return name + " (VK_KHR_shader_maximal_reconvergence: every kernel declares MaximallyReconvergesKHR)";
  if (r == Reconvergence::subgroup_uniform)
    return name + " (VK_KHR_shader_subgroup_uniform_control_flow: every kernel declares SubgroupUniformControlFlowKHR)";
  const DeviceInfo& d = ctx.device_info();
  if (d.maximal_reconvergence || d.subgroup_uniform_control_flow) return name + " (the device offers one, not enabled)";
  return name + " (the device offers neither VK_KHR_shader_maximal_reconvergence nor "
                "VK_KHR_shader_subgroup_uniform_control_flow)";
}

std::string selection_reason(const GlobalFlags& globals) {
  if (!globals.device_selector.empty()) return "chosen by --device '" + globals.device_selector + "'";
  if (const char* env = std::getenv("GPUSCAN_DEVICE"); env && *env)
    return "chosen by GPUSCAN_DEVICE='" + std::string(env) + "'";
  return "default order: discrete GPU, integrated, virtual, CPU; set --device or GPUSCAN_DEVICE to change";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

void write_device(JsonWriter& json, const DeviceInfo& d, bool picked) {
  json.begin_object();
  json.key("index").value(d.index);
  json.key("name").value(d.name);
  json.key("picked").value(picked);
  json.key("type").value(gpuscan::to_string(d.type));
  json.key("api_version").value(format_api_version(d.api_version));
  json.key("subgroup_size").value(d.subgroup_size);
  json.key("min_subgroup_size").value(d.min_subgroup_size);
  json.key("max_subgroup_size").value(d.max_subgroup_size);
  json.key("subgroup_size_control").value(d.subgroup_size_control);
  json.key("compute_full_subgroups").value(d.compute_full_subgroups);
  json.key("subgroup_operations").begin_array();
  if (d.subgroup_operations != 0)
    for (const std::string& name : split(format_subgroup_operations(d.subgroup_operations), ' ')) json.value(name);
  json.end_array();
  json.key("push_descriptors").value(d.push_descriptors);
  json.key("single_pass_capable").value(d.single_pass_capable);
  json.key("shader_int64").value(d.shader_int64);
  json.key("shader_float64").value(d.shader_float64);
  json.key("subgroup_extended_types").value(d.subgroup_extended_types);
  json.key("max_workgroup_invocations").value(d.max_workgroup_invocations);
  json.key("max_workgroup_count").begin_array();
  for (const uint32_t count : d.max_workgroup_count) json.value(count);
  json.end_array();
  json.key("max_storage_buffer_range").value(d.max_storage_buffer_range);
  json.key("buffer_device_address").value(d.buffer_device_address);
  json.key("subgroup_uniform_control_flow").value(d.subgroup_uniform_control_flow);
  json.key("maximal_reconvergence").value(d.maximal_reconvergence);
  json.key("min_storage_buffer_offset_alignment").value(d.min_storage_buffer_offset_alignment);
  json.key("max_shared_memory_bytes").value(d.max_shared_memory_bytes);
  json.key("shader_cores").value(d.shader_cores);  // 0: not reported
  json.key("largest_memory_heap_bytes").value(d.largest_memory_heap_bytes);
  json.key("timestamp_period_ns");  // null: the compute queue has no timestamps
  if (d.timestamp_period_ns > 0)
    json.value(static_cast<double>(d.timestamp_period_ns));
  else
    json.null();
  json.end_object();
}

// The tuning profile a context's defaults come from (Context::tuning_profile, on either API): a line
// "tuning profile: NAME — SOURCE" in text, {"name", "source"} in JSON.
template <class Ctx>
std::string describe_profile(const Ctx& ctx) {
  return "tuning profile: " + std::string(ctx.tuning_profile()) + " — " + std::string(ctx.tuning_profile_source());
}
template <class Ctx>
void write_profile(JsonWriter& json, const Ctx& ctx) {
  json.key("tuning_profile").begin_object();
  json.key("name").value(std::string(ctx.tuning_profile()));
  json.key("source").value(std::string(ctx.tuning_profile_source()));
  json.end_object();
}

// `info --json`: everything the text form says, as one document. Whatever fails (no device matches, an
// explicit algorithm cannot run there) is left null and described under "error"; the error is then
// reported on stderr and sets the exit code as it does without --json.
int run_info_json(const InfoOptions& options, GlobalFlags& globals) {
  const auto devices = Context::list_devices();
  std::optional<Context> ctx;
  std::optional<Error> error;
  try {
    ctx.emplace(globals.open_context());
  } catch (const Error& e) {
    error = e;
  }

  ScanConfig config = scan_config(options.type, options.inclusive, options.algorithm);
  const uint64_t n = options.n.value_or(default_choice_count);
  struct Choice {
    Algorithm algorithm;
    std::string description;
    uint64_t temp_bytes;
    std::vector<std::string> plan;
  };
  std::optional<Choice> choice;
  if (ctx) {
    try {
      const Algorithm algorithm = ctx->resolve(config, n);
      choice = Choice{algorithm, ctx->describe_choice(config, n), scan_temp_requirements(*ctx, n, config).size,
                      options.n ? split(describe_scan_plan(*ctx, n, config), '\n') : std::vector<std::string>{}};
    } catch (const Error& e) {
      error = e;
    }
  }

  JsonWriter json(std::cout);
  json.begin_object();
  json.key("gpuscan_version").value(version);
  json.key("devices").begin_array();
  for (const auto& d : devices) write_device(json, d, ctx && ctx->device_info().index == d.index);
  json.end_array();

  json.key("picked");
  if (ctx) {
    json.begin_object();
    json.key("index").value(ctx->device_info().index);
    json.key("name").value(ctx->device_info().name);
    const char* env = std::getenv("GPUSCAN_DEVICE");
    if (!globals.device_selector.empty())
      json.key("selected_by").value("--device").key("selector").value(globals.device_selector);
    else if (env && *env)
      json.key("selected_by").value("GPUSCAN_DEVICE").key("selector").value(env);
    else
      json.key("selected_by").value("default").key("order").value("discrete GPU, integrated, virtual, CPU");
    json.key("single_pass_available").value(ctx->single_pass_available());
    json.key("addressing").value(to_string(ctx->addressing()));
    json.key("device_address_available").value(ctx->device_address_available());
    json.key("reconvergence").value(to_string(ctx->reconvergence()));
    json.end_object();
  } else {
    json.null();
  }
  if (ctx)
    write_profile(json, *ctx);
  else
    json.key("tuning_profile").null();

  json.key("choice");
  if (choice) {
    json.begin_object();
    json.key("n").value(n);
    json.key("type").value(to_string(config.type));
    json.key("kind").value(to_string(config.kind));
    json.key("requested").value(to_string(config.algorithm));
    json.key("algorithm").value(to_string(choice->algorithm));
    if (choice->algorithm == Algorithm::multipass)
      json.key("workgroup_algorithm").value(to_string(ctx->resolve(config.workgroup, config.type)));
    const uint32_t w = ctx->workgroup_size(config, n);
    json.key("workgroup_size").value(w);
    const uint32_t k = ctx->vectors_per_lane(config, n);
    if (choice->algorithm != Algorithm::multipass) json.key("vectors_per_lane").value(k);
    json.key("tile_elements").value(tile_elements(config, choice->algorithm, k, w));
    json.key("temp_bytes").value(choice->temp_bytes);
    json.key("description").value(choice->description);
    json.key("addressing").value(ctx->describe_addressing(config.type, n));
    if (options.n) {
      json.key("plan").begin_array();
      for (const std::string& line : choice->plan) json.value(line);
      json.end_array();
    }
    json.end_object();
  } else {
    json.null();
  }

  if (error) {
    json.key("error").begin_object();
    json.key("code").value(error->code().value());
    json.key("message").value(error->what());
    json.end_object();
  }
  json.end_object();
  if (error) {  // the document is whole: it says what failed
    process_outputs().commit_stdout();
    throw *error;
  }
  return 0;
}

#if GPUSCAN_WITH_GL
// `info --api gl`: the GL context gpuscan creates (EGL, headless), what it offers, what a scan would use
// and why, and with --n the plan; with --json the same as one JSON document.
int run_info_gl(const InfoOptions& options, GlobalFlags& globals) {
  const Backend backend = globals.open_backend();
  const gl::Context& ctx = *backend.gl();
  const gl::GlInfo& info = ctx.info();
  ScanConfig config = scan_config(options.type, options.inclusive, options.algorithm);
  const uint64_t n = options.n.value_or(default_choice_count);
  const std::string choice = ctx.describe_choice(config, n);
  const std::string compaction(to_string(ctx.resolve(CompactPath::automatic)));
  const std::string plan = options.n ? gl::describe_scan_plan(ctx, n, config) : "";
  const char* subgroups = info.subgroup_basic ? "GL_KHR_shader_subgroup" : "none (no GL_KHR_shader_subgroup)";
  if (options.json) {
    JsonWriter json(std::cout);
    json.begin_object();
    json.key("gpuscan_version").value(version);
    json.key("api").value("gl");
    json.key("version").value(info.version);
    json.key("renderer").value(info.renderer);
    json.key("vendor").value(info.vendor);
    json.key("platform").value(info.platform);
    json.key("subgroup_size").value(info.subgroup_size);
    json.key("subgroup_arithmetic").value(info.subgroup_arithmetic);
    json.key("subgroup_ballot").value(info.subgroup_ballot);
    json.key("arb_shader_ballot").value(info.arb_shader_ballot);
    json.key("gpu_shader_int64").value(info.gpu_shader_int64);
    json.key("gpu_shader_fp64").value(info.gpu_shader_fp64);
    json.key("max_workgroup_invocations").value(info.max_workgroup_invocations);
    json.key("max_shader_storage_block_size").value(info.max_shader_storage_block_size);
    json.key("shader_storage_offset_alignment").value(info.shader_storage_offset_alignment);
    json.key("max_shared_memory_bytes").value(info.max_shared_memory_bytes);
    write_profile(json, ctx);
    json.key("n").value(n);
    json.key("algorithm").value(to_string(ctx.resolve(config, n)));
    json.key("algorithm_description").value(choice);
    json.key("compaction_path").value(compaction);
    json.key("plan").begin_array();
    for (const std::string& line : split(plan, '\n')) json.value(line);
    json.end_array();
    json.end_object();
    std::cout << std::endl;
    return 0;
  }
  auto& out = std::cout;
  out << "gpuscan " << version << " on OpenGL (" << info.platform << ")\n"
      << "  version                     " << info.version << '\n'
      << "  renderer                    " << info.renderer << '\n'
      << "  vendor                      " << info.vendor << '\n'
      << "  subgroup operations         " << subgroups;
  if (info.subgroup_basic)
    out << ": size " << info.subgroup_size << ", arithmetic " << (info.subgroup_arithmetic ? "yes" : "no")
        << ", ballot " << (info.subgroup_ballot ? "yes" : "no");
  out << (info.arb_shader_ballot ? " (GL_ARB_shader_ballot: yes, unused)" : "") << '\n'
      << "  64-bit types                u64/i64 " << (info.gpu_shader_int64 ? "yes" : "no")
      << " (GL_ARB_gpu_shader_int64), f64 " << (info.gpu_shader_fp64 ? "yes" : "no")
      << " (GL_ARB_gpu_shader_fp64, core in 4.0)\n"
      << "  reductions                  "
      << (info.subgroup_arithmetic ? "subgroup arithmetic (32-bit types), " : "") << "without subgroups"
      << (info.subgroup_arithmetic ? " (64-bit types)" : " (no GL_KHR_shader_subgroup)") << '\n'
      << "  single-pass                 no: not offered on OpenGL (no look-back kernels: docs/gl.md)\n"
      << "  max workgroup invocations   " << info.max_workgroup_invocations << '\n'
      << "  max SSBO binding            " << format_bytes(info.max_shader_storage_block_size) << '\n'
      << "  SSBO offset alignment       " << format_bytes(info.shader_storage_offset_alignment) << '\n'
      << "  shared memory               " << format_bytes(info.max_shared_memory_bytes) << '\n'
      << '\n' << describe_profile(ctx) << '\n'
      << "algorithm: " << choice << '\n'
      << "compaction: the " << compaction << " path (automatic)\n";
  if (options.n) out << "\nplan for n = " << n << ":\n" << plan;
  return 0;
}
#endif

int run_info(const InfoOptions& options, GlobalFlags& globals) {
  if (globals.api == Api::gl) {
#if GPUSCAN_WITH_GL
    return run_info_gl(options, globals);
#else
    globals.open_backend();  // throws: built without the OpenGL backend
#endif
  }
  if (options.json) return run_info_json(options, globals);
  auto& out = std::cout;
  const auto devices = Context::list_devices();

  // Open the context before printing so the list can mark the pick; if no device qualifies, still
  // print the list (it shows why), then report the error.
  std::optional<Context> ctx;
  std::optional<Error> pick_error;
  try {
    ctx.emplace(globals.open_context());
  } catch (const Error& e) {
    pick_error = e;
  }

  out << "gpuscan " << version << ": " << devices.size() << " Vulkan device" << (devices.size() == 1 ? "" : "s")
      << " (* = the one gpuscan picks)\n";
  for (const auto& d : devices) print_device(out, d, ctx && ctx->device_info().index == d.index);
  if (pick_error) {  // the list is whole and shows why no device qualifies; what follows needs one
    process_outputs().commit_stdout();
    throw *pick_error;
  }
  const DeviceInfo& picked = ctx->device_info();
  out << "\ngpuscan picks: " << describe_device(picked) << "\n  (" << selection_reason(globals) << ")\n";

  ScanConfig config = scan_config(options.type, options.inclusive, options.algorithm);
  const uint64_t n = options.n.value_or(default_choice_count);
  out << '\n' << describe_profile(*ctx) << '\n';
  out << "algorithm: " << ctx->describe_choice(config, n) << '\n';
  out << "addressing: " << ctx->describe_addressing(config.type, n) << '\n';
  out << "reconvergence: " << describe_reconvergence(*ctx) << '\n';

  if (options.n) {
    // describe_scan_plan's first line names the algorithm and W (and K); the passes follow.
    const Algorithm algorithm = ctx->resolve(config, n);
    const std::string listing = describe_scan_plan(*ctx, n, config);
    out << "\nplan for n = " << n << " (" << to_string(config.type) << ", " << to_string(config.kind)
        << ", tiles of " << tile_elements(config, algorithm, ctx->vectors_per_lane(config, n), ctx->workgroup_size(config, n))
        << " elements; temp buffer "
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
      ->transform(unsigned_integer())
      ->type_name("N");
  add_type_option(*sub, options->type);
  sub->add_flag("--inclusive", options->inclusive, "plan an inclusive scan (default: exclusive)");
  add_algorithm_options(*sub, options->algorithm);
  sub->add_flag("--json", options->json,
                "print the devices, the pick, the algorithm (and with --n the plan) as one JSON document");
  sub->footer(
      "Examples:\n"
      "  gpuscan info                                  devices, the pick, the algorithm for 2^24 elements\n"
      "  gpuscan info --n 1000000                      ... and the plan for 10^6 elements\n"
      "  gpuscan info --n 1000000 --algorithm multipass -a blelloch --workgroup-size 64\n"
      "  gpuscan info --json | python3 -m json.tool    the same as JSON\n"
      "  gpuscan --device llvmpipe info                the pick chosen by name\n"
      "  gpuscan --api gl info                         OpenGL: version, renderer, subgroups, the pick\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_info(*options, globals); },
          [options](const GlobalFlags& globals) {
            return options->algorithm.conflict_with(globals.api, globals.api_option());
          }};
}

}  // namespace gpuscan::cli
