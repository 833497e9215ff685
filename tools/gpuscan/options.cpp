#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "gpuscan/stream.hpp"

namespace gpuscan::cli {
namespace {

// A CLI11 validator that accepts exactly the names `parse` accepts. CLI11 reports the returned
// string as a ValidationError, which main() turns into exit code 2.
template <class Parse>
CLI::Validator name_validator(Parse parse, std::string what, std::string valid_names) {
  return CLI::Validator(
      [=](std::string& name) -> std::string {
        if (parse(name)) return {};
        return "unknown " + what + " '" + name + "'; valid " + what + "s: " + valid_names;
      },
      "", what);
}

std::string workgroup_algorithm_names() {
  std::string names;
  for (auto a : {WorkgroupAlgorithm::automatic, WorkgroupAlgorithm::blelloch, WorkgroupAlgorithm::subgroup}) {
    if (!names.empty()) names += ", ";
    names += to_string(a);
  }
  return names;
}

}  // namespace

CLI::Validator unsigned_integer(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not a non-negative integer";
        text.erase(0, std::min(text.find_first_not_of('0'), text.size() - 1));
        uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value > max)
          return "'" + text + "' is larger than " + std::to_string(max);
        return {};
      },
      "", "unsigned integer");
}

CLI::Option* add_type_option(CLI::App& app, DataType& type) {
  return app
      .add_option_function<std::string>(
          "--type,-t", [&type](const std::string& name) { type = *parse_data_type(name); },
          "element type: " + data_type_names())
      ->check(name_validator([](const std::string& n) { return parse_data_type(n).has_value(); }, "type",
                             data_type_names()))
      ->type_name("TYPE")
      ->default_str(std::string(to_string(type)));
}

std::string op_names() {
  std::string names;
  for (Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor}) {
    if (!names.empty()) names += ", ";
    names += to_string(op);
  }
  return names;
}

CLI::Option* add_op_option(CLI::App& app, Op& op) {
  return app
      .add_option_function<std::string>(
          "--op", [&op](const std::string& name) { op = *parse_op(name); },
          "operator: " + op_names() + " (and, or, xor on integer types only; integer add and mul wrap)")
      ->check(name_validator([](const std::string& n) { return parse_op(n).has_value(); }, "operator", op_names()))
      ->type_name("OP")
      ->default_str(std::string(to_string(op)));
}

CLI::Option* add_format_option(CLI::App& app, FileFormat& format) {
  return app
      .add_option_function<std::string>(
          "--format,-f", [&format](const std::string& name) { format = *parse_file_format(name); },
          "file format of --in and --out: binary (raw little-endian) or text (one number per line)")
      ->check(name_validator([](const std::string& n) { return parse_file_format(n).has_value(); }, "format",
                             "binary, text"))
      ->type_name("FORMAT")
      ->default_str(std::string(to_string(format)));
}

std::string op_conflict(Op op, DataType type) {
  if (op_supports(op, type)) return {};
  return "--op " + std::string(to_string(op)) + " applies to integer types only, not to --type " +
         std::string(to_string(type));
}

void add_format_options(CLI::App& app, FileFormat& format, std::optional<FileFormat>& out_format) {
  add_format_option(app, format)
      ->description("file format of the inputs, and of the outputs unless --out-format: binary (raw "
                    "little-endian) or text (one number per line)");
  app.add_option_function<std::string>(
         "--out-format", [&out_format](const std::string& name) { out_format = *parse_file_format(name); },
         "file format of the outputs: binary or text (default: --format)")
      ->check(name_validator([](const std::string& n) { return parse_file_format(n).has_value(); }, "format",
                             "binary, text"))
      ->type_name("FORMAT");
}

std::string file_conflict(const std::vector<FileOption>& inputs, const std::vector<FileOption>& outputs) {
  const FileOption* first_stdin = nullptr;
  for (const FileOption& input : inputs) {
    if (input.path != "-") continue;
    if (first_stdin)
      return first_stdin->option + " - and " + input.option +
             " - both name standard input, which can be read only once; give " + input.option + " a file";
    first_stdin = &input;
  }
  for (auto a = outputs.begin(); a != outputs.end(); ++a)
    for (auto b = a + 1; b != outputs.end(); ++b) {
      if (a->path.empty() || b->path.empty() || !same_path(a->path, b->path)) continue;
      if (a->path == "-")
        return a->option + " - and " + b->option +
               " - both go to standard output, where the two would run together; give one a file";
      return a->option + " and " + b->option + " name one file ('" + a->path + "'" +
             (a->path == b->path ? "" : " and '" + b->path + "'") +
             "), where one output would overwrite the other; give each its own";
    }
  return {};
}

CLI::Option* add_memory_budget_option(CLI::App& app, uint64_t& budget) {
  return app
      .add_option_function<std::string>(
          "--device-memory-budget", [&budget](const std::string& text) { budget = *parse_byte_size(text); },
          "memory the GPU buffers may take at once (staging, input, output, temp of the chunks in flight), e.g. "
          "64K, 16M, 1G: binary input larger than that is streamed through the GPU in chunks, the running total "
          "carried from chunk to chunk. Default (and 0): " + std::to_string(default_stream_budget >> 20) + "M")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_byte_size(text)) return {};
            return "'" + text + "' is not a size (bytes, or a number with K, M, G or T: 64K, 16M, 1G)";
          },
          "", "size"))
      ->type_name("SIZE");
}

// --- --algorithm and friends ----------------------------------------------------------------------

std::string_view to_string(AlgorithmName name) noexcept {
  switch (name) {
    case AlgorithmName::automatic: return gpuscan::to_string(Algorithm::automatic);
    case AlgorithmName::single_pass: return gpuscan::to_string(Algorithm::single_pass);
    case AlgorithmName::reduce_then_scan: return gpuscan::to_string(Algorithm::reduce_then_scan);
    case AlgorithmName::multipass: return gpuscan::to_string(Algorithm::multipass);
    case AlgorithmName::blelloch: return gpuscan::to_string(WorkgroupAlgorithm::blelloch);
    case AlgorithmName::look_ahead: return gpuscan::to_string(Algorithm::look_ahead);
  }
  return "?";
}

std::optional<AlgorithmName> parse_algorithm_name(std::string_view name) noexcept {
  for (const AlgorithmName a : all_algorithm_names)
    if (name == to_string(a)) return a;
  return std::nullopt;
}

std::string algorithm_names() {
  std::string names;
  for (const AlgorithmName a : all_algorithm_names) {
    if (!names.empty()) names += ", ";
    names += to_string(a);
  }
  return names;
}

std::string AlgorithmOptions::conflict() const {
  if (!algorithm || !workgroup || *workgroup == WorkgroupAlgorithm::automatic) return {};
  if (*algorithm == AlgorithmName::single_pass || *algorithm == AlgorithmName::reduce_then_scan ||
      *algorithm == AlgorithmName::look_ahead)
    return "--workgroup-algorithm " + std::string(to_string(*workgroup)) +
           " applies to the multipass scan only, not to --algorithm " + std::string(to_string(*algorithm));
  if (*algorithm == AlgorithmName::blelloch && *workgroup != WorkgroupAlgorithm::blelloch)
    return "--algorithm blelloch is the multipass scan with Blelloch workgroup scans; it conflicts with "
           "--workgroup-algorithm " + std::string(to_string(*workgroup));
  return {};
}

std::string AlgorithmOptions::conflict_with(Api api, const std::string& api_option) const {
  if (api != Api::gl || (algorithm != AlgorithmName::single_pass && algorithm != AlgorithmName::look_ahead)) return {};
  return "--algorithm " + std::string(to_string(*algorithm)) + " is not offered with " + api_option +
         " (the GL backend builds no look-back kernels: they need 64-bit buffer atomics and GL_KHR_shader_subgroup); use reduce-then-scan, multipass, "
         "blelloch or auto";
}

void AlgorithmOptions::apply(ScanConfig& config) const {
  config.workgroup_size = workgroup_size;
  config.vectors_per_lane = vectors_per_lane;
  config.deterministic = !nondeterministic;
  config.workgroup = workgroup.value_or(WorkgroupAlgorithm::automatic);
  const AlgorithmName name =
      algorithm ? *algorithm
                : (config.workgroup != WorkgroupAlgorithm::automatic ? AlgorithmName::multipass
                                                                     : AlgorithmName::automatic);
  switch (name) {
    case AlgorithmName::automatic: config.algorithm = Algorithm::automatic; break;
    case AlgorithmName::single_pass:
      config.algorithm = Algorithm::single_pass;
      break;
    case AlgorithmName::reduce_then_scan: config.algorithm = Algorithm::reduce_then_scan; break;
    case AlgorithmName::look_ahead: config.algorithm = Algorithm::look_ahead; break;
    case AlgorithmName::multipass: config.algorithm = Algorithm::multipass; break;
    case AlgorithmName::blelloch:
      config.algorithm = Algorithm::multipass;
      config.workgroup = WorkgroupAlgorithm::blelloch;
      break;
  }
}

ScanConfig scan_config(DataType type, bool inclusive, const AlgorithmOptions& algorithm) {
  ScanConfig config;
  config.type = type;
  config.kind = inclusive ? ScanKind::inclusive : ScanKind::exclusive;
  algorithm.apply(config);
  return config;
}

void add_tile_shape_options(CLI::App& app, uint32_t& workgroup_size, uint32_t& vectors_per_lane,
                            const std::string& tiles_note, const std::string& k_applies_to) {
  app.add_option("--workgroup-size,-w", workgroup_size,
                 "invocations per workgroup W: a power of two from 32 to the device's max workgroup "
                 "invocations; 0 = gpuscan's default (" +
                     std::to_string(gpuscan::default_workgroup_size) +
                     ", or what single-pass plans pick for the type and size: docs/scan.md, docs/compact.md). " +
                     tiles_note)
      ->transform(unsigned_integer(UINT32_MAX))
      ->type_name("W")
      ->capture_default_str();
  app.add_option("--vectors-per-lane,-k", vectors_per_lane,
                 k_applies_to + "4-element vectors each invocation owns, K: a power of two from 1 to 16; 0 = "
                 "gpuscan's default (" + std::to_string(gpuscan::default_vectors_per_lane) +
                 ", or 2 for 8-byte types; single-pass plans pick theirs by type and size)")
      ->transform(unsigned_integer(UINT32_MAX))
      ->type_name("K")
      ->capture_default_str();
}

void add_algorithm_options(CLI::App& app, AlgorithmOptions& options) {
  app.add_option_function<std::string>(
         "--algorithm", [&options](const std::string& name) { options.algorithm = *parse_algorithm_name(name); },
         "how to scan the whole buffer: " + algorithm_names() +
             ". auto takes single-pass where the device can (and the input spans more than one tile), else "
             "reduce-then-scan where it has subgroup arithmetic, else multipass; blelloch is multipass with "
             "Blelloch workgroup scans; look-ahead is the experimental single-pass scan that chains tile totals only, never "
             "picked by auto (docs/scan.md)")
      ->check(name_validator([](const std::string& n) { return parse_algorithm_name(n).has_value(); }, "algorithm",
                             algorithm_names()))
      ->type_name("ALGORITHM")
      ->default_str("auto");
  app.add_option_function<std::string>(
         "--workgroup-algorithm,-a",
         [&options](const std::string& name) { options.workgroup = *parse_workgroup_algorithm(name); },
         "multipass only: how one workgroup scans its tile: " + workgroup_algorithm_names() +
             " (auto takes subgroup where the device has subgroup arithmetic). blelloch or subgroup without "
             "--algorithm selects the multipass scan")
      ->check(name_validator([](const std::string& n) { return parse_workgroup_algorithm(n).has_value(); },
                             "workgroup algorithm", workgroup_algorithm_names()))
      ->type_name("ALGORITHM")
      ->default_str("auto");
  add_tile_shape_options(app, options.workgroup_size, options.vectors_per_lane,
                         "Tiles hold 2*W elements (multipass) or W*K*4 (single-pass, reduce-then-scan)",
                         "single-pass and reduce-then-scan: ");
  app.add_flag("--nondeterministic", options.nondeterministic,
               "f32/f64: let float single-pass scans take the unordered look-back (10-25 % faster on the H200, "
               "but the last bits may differ run to run; auto may then run them single-pass at larger sizes). "
               "Default: bitwise the same result on every run. No effect on integers");
  // Thrown from here, a ValidationError leaves app.parse() like any other usage error (exit code 2).
  app.parse_complete_callback([&options] {
    if (const std::string conflict = options.conflict(); !conflict.empty()) throw CLI::ValidationError(conflict);
  });
}

uint32_t effective_workgroup_size(const ScanConfig& config) {
  return config.workgroup_size != 0 ? config.workgroup_size : gpuscan::default_workgroup_size;
}

uint32_t effective_vectors_per_lane(const ScanConfig& config) {
  return config.vectors_per_lane != 0 ? config.vectors_per_lane
                                     : gpuscan::default_vectors_per_lane_for(element_size(config.type));
}

uint64_t tile_elements(const ScanConfig& config, Algorithm algorithm, uint32_t k, uint32_t w) {
  if (w == 0) w = effective_workgroup_size(config);
  return algorithm == Algorithm::multipass ? uint64_t{2} * w : uint64_t{w} * (k ? k : effective_vectors_per_lane(config)) * 4;
}

}  // namespace gpuscan::cli
