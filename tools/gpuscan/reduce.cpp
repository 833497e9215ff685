// `gpuscan reduce`: read a file of numbers, reduce it to one value on the GPU under an operator, print
// it (or write it to --out), optionally check it against the CPU reference. One summary line goes to
// stderr.
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "format.hpp"
#include "io.hpp"
#include "options.hpp"
#include "verify.hpp"

namespace gpuscan::cli {
namespace {

struct ReduceOptions {
  DataType type = DataType::u32;
  Op op = Op::add;
  uint32_t workgroup_size = 0;
  uint32_t vectors_per_lane = 0;
  std::string in;
  std::string out;  // "" = the result as text on stdout
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;  // --out-format; default: --format for --out, text on stdout
  bool verify = false;
  uint64_t budget = 0;  // --device-memory-budget; 0 = the library's default
  std::string offsets;  // --offsets: u32 segment offsets (S + 1), one result per segment
};

// The result to --out in --out-format (else --format), or without --out to standard output in --out-format
// (else text).
void write_result(const ReduceOptions& options, std::span<const std::byte> result) {
  if (options.out.empty()) write_values("-", result, options.type, options.out_format.value_or(FileFormat::text));
  else write_values(options.out, result, options.type, options.out_format.value_or(options.format));
}

// `gpuscan reduce --offsets FILE`: one result per segment [offsets[s], offsets[s+1]) of the values
// (include/gpuscan/vulkan/segmented_reduce.hpp; gl.hpp with --api gl); reads the whole input.
int run_segmented_reduce(const ReduceOptions& options, GlobalFlags& globals) {
  const auto values = read_values(options.in, options.type, options.format);
  const auto offset_bytes = read_values(options.offsets, DataType::u32, options.format);
  std::vector<uint32_t> offsets(offset_bytes.size() / 4);
  if (!offsets.empty()) std::memcpy(offsets.data(), offset_bytes.data(), offset_bytes.size());
  const Backend backend = globals.open_backend();
  const ReduceConfig config{options.type, options.op, options.workgroup_size, options.vectors_per_lane};
  const auto start = std::chrono::steady_clock::now();
  // The plan checks the offsets.
  const auto result = backend.run(primitive::SegmentedReduce{config}, {.values = values, .offsets = offsets},
                                  values.size() / element_size(options.type));
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  write_result(options, result);
  const uint32_t esize = element_size(options.type);
  const uint64_t segments = offsets.size() - 1;
  std::cerr << "gpuscan: " << to_string(config.op) << " segmented reduction of " << values.size() / esize << ' '
            << to_string(config.type) << " elements in " << segments << " segments (offsets '" << options.offsets
            << "') on " << backend.describe_device() << ": wall " << format_duration(wall_ns);
  // Each segment checked as a reduction of its own; a mismatch names the segment.
  return end_summary(std::cerr, options.verify, [&]() -> std::optional<Mismatch> {
    Mismatch total;
    total.elements = segments;
    for (uint64_t s = 0; s < segments; ++s) {
      const auto slice = std::span<const std::byte>(values).subspan(uint64_t{offsets[s]} * esize,
                                                                     uint64_t{offsets[s + 1] - offsets[s]} * esize);
      const auto m = verify_reduce(slice, std::span<const std::byte>(result).subspan(s * esize, esize), options.type,
                                   options.op);
      if (!m) continue;
      if (total.count++ == 0) {
        total.index = s;
        total.got = m->got;
        total.expected = m->expected;
      }
    }
    if (total.count == 0) return std::nullopt;
    return total;
  });
}

#if GPUSCAN_WITH_GL
// On OpenGL the whole input is reduced in one call (gl::reduce_bytes; GL has no streamed reduction).
int run_gl_reduce(const ReduceOptions& options, GlobalFlags& globals) {
  InputSource input(options.in, options.type, options.format, true);
  const Backend backend = globals.open_backend();
  const ReduceConfig config{options.type, options.op, options.workgroup_size, options.vectors_per_lane};
  const uint64_t n = input.values().size() / element_size(options.type);
  double gpu_ns = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto result = backend.run(primitive::Reduce{config}, {.values = input.values()}, n, &gpu_ns);
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  write_result(options, result);
  std::cerr << "gpuscan: " << to_string(config.op) << " reduction of " << n << ' ' << to_string(config.type)
            << " elements on " << backend.describe_device() << ": GPU " << format_duration(gpu_ns) << ", wall "
            << format_duration(wall_ns);
  return end_summary(std::cerr, options.verify,
                     [&] { return verify_reduce(input.values(), result, options.type, options.op); });
}
#endif

// Options that conflict, in the command line's words (commands.hpp, Command::conflict). `budget_given`:
// --device-memory-budget was given, which the OpenGL reduction, reading the whole input, cannot honour.
std::string reduce_conflict(const ReduceOptions& options, const GlobalFlags& globals, bool budget_given) {
  if (!options.offsets.empty() && budget_given)
    return "--device-memory-budget does not apply to --offsets: segmented reductions read the whole file";
  if (std::string conflict = file_conflict({{"--in", options.in}, {"--offsets", options.offsets}}, {});
      !conflict.empty())
    return conflict;
  if (globals.api == Api::gl && budget_given)
    return "--device-memory-budget does not apply with " + globals.api_option() +
           ": the OpenGL reduction reads the whole input and is not streamed in chunks";
  return op_conflict(options.op, options.type);
}

int run_reduce(const ReduceOptions& options, GlobalFlags& globals) {
  if (!options.offsets.empty()) return run_segmented_reduce(options, globals);
#if GPUSCAN_WITH_GL
  if (globals.api == Api::gl) return run_gl_reduce(options, globals);
#endif
  // Binary input streams through the GPU in chunks that fit the budget; text and --verify read it whole.
  InputSource input(options.in, options.type, options.format, options.verify);
  const Backend backend = globals.open_backend();  // saves the pipeline cache when it closes
  const Context& ctx = *backend.vulkan();
  const ReduceConfig config{options.type, options.op, options.workgroup_size, options.vectors_per_lane};
  const StreamOptions stream{.device_memory_budget = options.budget, .size_hint = input.size()};
  plan_reduce_stream(ctx, config, stream);  // a bad tile shape or budget fails before any reading
  StreamStats stats;
  const auto start = std::chrono::steady_clock::now();
  const auto result =
      reduce_stream(ctx, config, [&](std::span<std::byte> buffer) { return input.read(buffer); }, stream, &stats);
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const uint64_t n = stats.count;

  write_result(options, result);
  std::cerr << "gpuscan: " << to_string(config.op) << " reduction of " << n << ' ' << to_string(config.type)
            << " elements" << describe_chunks(stats) << " on " << describe_device(ctx.device_info()) << ": wall "
            << format_duration(wall_ns);
  return end_summary(std::cerr, options.verify,
                     [&] { return verify_reduce(input.values(), result, options.type, options.op); });
}

}  // namespace

Command add_reduce_command(CLI::App& app) {
  auto options = std::make_shared<ReduceOptions>();
  CLI::App* sub = app.add_subcommand("reduce", "Reduce the numbers in a file to one value on the GPU");
  add_type_option(*sub, options->type)->required()->default_str("");
  add_op_option(*sub, options->op);
  sub->add_option("--in,-i", options->in, "input file ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--out,-o", options->out,
                  "write the result to FILE in --out-format, else --format ('-' = standard output); default: "
                  "print it to standard output in --out-format, else as text")
      ->type_name("FILE");
  sub->add_option("--offsets", options->offsets,
                  "segmented reduction: file of S + 1 non-decreasing u32 offsets in --format; prints one result "
                  "per segment [offsets[s], offsets[s+1]) (the identity for an empty one); on Vulkan and OpenGL")
      ->type_name("FILE");
  add_format_options(*sub, options->format, options->out_format);
  CLI::Option* budget = add_memory_budget_option(*sub, options->budget);
  add_tile_shape_options(*sub, options->workgroup_size, options->vectors_per_lane, "Tiles hold W*K*4 elements");
  sub->add_flag("--verify", options->verify,
                "check the result against the CPU reference (exact for integers and min/max, within rounding "
                "tolerance for float add and mul); exit 1 if it differs");
  sub->footer(
      "Examples:\n"
      "  seq 1 100 | gpuscan reduce --type u32 --in - --format text               5050\n"
      "  gpuscan reduce --type f64 --op max --in a.bin                            the largest element\n"
      "  gpuscan reduce --type i64 --op xor --in a.txt --format text --out r.txt --verify\n"
      "  gpuscan reduce --type f32 --in v.bin --offsets o.bin --out sums.bin --verify   one sum per segment\n"
      "  gpuscan reduce --type u64 --op max --in v.bin --offsets o.bin --out m.bin --api gl   on OpenGL\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_reduce(*options, globals); },
          [options, budget](const GlobalFlags& globals) {
            return reduce_conflict(*options, globals, budget->count() > 0);
          }};
}

}  // namespace gpuscan::cli
