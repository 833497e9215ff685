// `gpuscan scan`: read a file of numbers, scan it on the GPU, write the result, optionally check it
// against the CPU reference. One summary line goes to stderr; stdout carries data only for --out -.
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "format.hpp"
#include "gpuscan/segmented.hpp"
#include "io.hpp"
#include "options.hpp"
#include "verify.hpp"

namespace gpuscan::cli {
namespace {

struct ScanOptions {
  DataType type = DataType::u32;
  Op op = Op::add;
  bool inclusive = false;
  AlgorithmOptions algorithm;
  std::string in;
  std::string out;
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;  // --out-format; default: format
  bool verify = false;
  uint64_t budget = 0;  // --device-memory-budget; 0 = the library's default
  std::string segments;   // --segments: u32 head flags
  std::string keys;       // --keys: keys whose changes start segments
  std::string key_type = "u32";
  std::string op_file;        // a custom operator's GLSL (ScanConfig::custom_op)
  uint32_t element_size = 0;  // its element size, checked; 0 = what the compiled snippet says
};

// `gpuscan scan --segments FILE` / `--keys FILE`: the segmented scan (include/gpuscan/segmented.hpp), either API.
int run_segmented_scan(const ScanOptions& options, GlobalFlags& globals, const std::vector<std::byte>& input) {
  const bool by_key = !options.keys.empty();
  const std::string& heads_path = by_key ? options.keys : options.segments;
  const DataType heads_type = by_key && options.key_type == "u64" ? DataType::u64 : DataType::u32;
  const SegmentHeads kind = !by_key ? SegmentHeads::flags
                            : heads_type == DataType::u64 ? SegmentHeads::keys_u64
                                                          : SegmentHeads::keys_u32;
  const auto heads = read_values(heads_path, heads_type, options.format);
  const uint64_t n = input.size() / element_size(options.type);
  const uint64_t heads_n = heads.size() / element_size(heads_type);
  if (heads_n < n)
    throw Error(Errc::invalid_argument, std::string(by_key ? "keys" : "segments") + " file '" + heads_path + "' holds " +
                                            std::to_string(heads_n) + (by_key ? " keys" : " flags") + ", fewer than the " +
                                            std::to_string(n) + " values of '" + options.in + "'");
  const Backend backend = globals.open_backend();
  ScanConfig config = scan_config(options.type, options.inclusive, options.algorithm);
  config.op = options.op;
  const auto start = std::chrono::steady_clock::now();
  const auto output = backend.run(primitive::SegmentedScan{config, kind}, {.values = input, .heads = heads}, n);
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  write_values(options.out, output, options.type, options.out_format.value_or(options.format));
  std::cerr << "gpuscan: " << to_string(config.kind) << " segmented"
            << (config.op == Op::add ? "" : " " + std::string(to_string(config.op))) << " scan of " << n << ' '
            << to_string(config.type) << " elements (segments from " << to_string(kind) << " '" << heads_path
            << "', reduce-then-scan over (head, value) pairs) on " << backend.describe_device() << ": wall "
            << format_duration(wall_ns);
  return end_summary(std::cerr, options.verify, [&] {
    const auto starts = segment_starts(heads, by_key ? element_size(heads_type) : 0, n);
    return verify_scan(input, output, config.type, config.kind, config.op, starts);
  });
}


// Options that conflict, in the command line's words (commands.hpp, Command::conflict). `budget_given`:
// --device-memory-budget was given, which only the streamed scans honour.
std::string scan_conflict(const ScanOptions& options, const GlobalFlags& globals, bool budget_given) {
  const AlgorithmOptions& algorithm = options.algorithm;
  if (std::string conflict = algorithm.conflict_with(globals.api, globals.api_option()); !conflict.empty())
    return conflict;
  const bool workgroup_given = algorithm.workgroup && *algorithm.workgroup != WorkgroupAlgorithm::automatic;
  const std::string workgroup = workgroup_given ? std::string(to_string(*algorithm.workgroup)) : "";
  const std::string algorithm_name = algorithm.algorithm ? std::string(to_string(*algorithm.algorithm)) : "";
  const std::string heads = !options.keys.empty() ? "--keys" : !options.segments.empty() ? "--segments" : "";
  if (!options.op_file.empty()) {
    if (!heads.empty())
      return "--op-file cannot be combined with " + heads + ": segmented scans take the built-in operators (--op)";
    if (options.verify) return "--verify has no CPU reference for a custom operator (--op-file)";
    if (budget_given)
      return "--device-memory-budget does not apply to --op-file: a custom operator's scan reads the whole file "
             "and is not streamed in chunks";
    if (algorithm.algorithm == AlgorithmName::single_pass || algorithm.algorithm == AlgorithmName::reduce_then_scan)
      return "--op-file runs the multipass scan with Blelloch workgroup scans only, not --algorithm " +
             algorithm_name + "; use --algorithm multipass, blelloch or auto";
    if (algorithm.workgroup == WorkgroupAlgorithm::subgroup)
      return "--op-file runs Blelloch workgroup scans only (subgroup operations have no custom operators), not "
             "--workgroup-algorithm subgroup";
  }
  if (!heads.empty()) {
    if (algorithm.algorithm && *algorithm.algorithm != AlgorithmName::automatic &&
        *algorithm.algorithm != AlgorithmName::reduce_then_scan)
      return "segmented scans (" + heads + ") run as reduce-then-scan only, not --algorithm " + algorithm_name +
             "; use --algorithm reduce-then-scan or auto";
    if (workgroup_given)
      return "--workgroup-algorithm " + workgroup + " applies to the multipass scan, which segmented scans (" +
             heads + ") do not run";
    if (budget_given)
      return "--device-memory-budget does not apply to " + heads +
             ": segmented scans read the whole file and are not streamed in chunks";
  }
  const std::string& heads_path = !options.keys.empty() ? options.keys : options.segments;
  if (std::string conflict = file_conflict({{"--in", options.in}, {heads, heads_path}}, {{"--out", options.out}});
      !conflict.empty())
    return conflict;
  return op_conflict(options.op, options.type);
}

std::string read_op_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(Errc::io_error, "cannot read the operator file '" + path + "'");
  std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  if (file.bad()) throw Error(Errc::io_error, "cannot read the operator file '" + path + "'");
  return text;
}

// With --op-file: the custom operator, compiled now for its element size, which must hold whole --type
// values; returns the number of elements in `input_bytes`.
uint64_t set_custom_op(ScanConfig& config, const ScanOptions& options, const Backend& ctx, uint64_t input_bytes) {
  config.custom_op = CustomOp{read_op_file(options.op_file), options.element_size};
  const uint32_t esize = ctx.compile_custom_op(*config.custom_op);
  const uint32_t value = element_size(options.type);
  if (esize % value != 0)
    throw Error(Errc::invalid_argument, "the custom operator's elements take " + std::to_string(esize) +
                                            " bytes, not a whole number of --type " +
                                            std::string(to_string(options.type)) + " values");
  if (input_bytes % esize != 0)
    throw Error(Errc::invalid_argument, "'" + options.in + "' holds " + std::to_string(input_bytes / value) + " " +
                                            std::string(to_string(options.type)) +
                                            " values, not a whole number of elements of " +
                                            std::to_string(esize / value) + " values (" + std::to_string(esize) +
                                            " bytes) of the custom operator");
  return input_bytes / esize;
}

// --op-file: the whole file in memory, scanned in one run (a custom operator takes no carry-in, so
// it cannot be streamed in chunks).
int run_custom_scan(const ScanOptions& options, GlobalFlags& globals) {
  const auto input = read_values(options.in, options.type, options.format);
  const Backend ctx = globals.open_backend();
  ScanConfig config = scan_config(options.type, options.inclusive, options.algorithm);
  const uint64_t n = set_custom_op(config, options, ctx, input.size());
  const std::string algorithm_text = describe_algorithm(ctx, config, ctx.resolve(config, n), n);
  double gpu_ns = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto output = ctx.run(primitive::Scan{config}, {.values = input}, n, &gpu_ns);
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  write_values(options.out, output, options.type, options.out_format.value_or(options.format));
  std::cerr << "gpuscan: " << to_string(config.kind) << " custom (" << options.op_file << ") scan of " << n << ' '
            << ctx.compile_custom_op(*config.custom_op) << "-byte elements (" << algorithm_text << ") on "
            << ctx.describe_device() << ": GPU " << format_duration(gpu_ns) << ", wall " << format_duration(wall_ns);
  return end_summary(std::cerr, false, [] { return std::optional<Mismatch>(); });
}

int run_scan(const ScanOptions& options, GlobalFlags& globals) {
  if (!options.op_file.empty()) return run_custom_scan(options, globals);
  if (!options.segments.empty() || !options.keys.empty())  // segmented scans hold everything in memory
    return run_segmented_scan(options, globals, read_values(options.in, options.type, options.format));
  // Binary data streams from --in to --out in chunks that fit the budget, so neither the host nor the
  // GPU holds all of it (--out lands whole at the end: an --out that is the --in file is read to its end
  // first). Text and --verify keep it all in memory (the scan itself is chunked the same way). Open the
  // input first: a bad file fails before device setup.
  const FileFormat out_format = options.out_format.value_or(options.format);
  const bool whole = options.format == FileFormat::text || out_format == FileFormat::text || options.verify;
  InputSource input(options.in, options.type, options.format, whole);
  const Backend ctx = globals.open_backend();
  ScanConfig config = scan_config(options.type, options.inclusive, options.algorithm);
  config.op = options.op;
  StreamOptions stream{.device_memory_budget = options.budget, .size_hint = input.size()};
  // What will run, on chunks of what size; throws before any work when an explicitly requested
  // algorithm cannot run on this device or the budget cannot hold one tile.
  const StreamPlan plan = ctx.plan_scan_stream(config, stream);
  const std::string algorithm_text = describe_algorithm(ctx, config, plan.algorithm, plan.chunk_elements);

  std::vector<std::byte> output;
  if (whole) output.reserve(input.values().size());
  BinaryWriter writer(options.out);
  const StreamWriter write = [&](std::span<const std::byte> results) {
    if (whole) output.insert(output.end(), results.begin(), results.end());
    else writer.write(results);
  };
  const auto start = std::chrono::steady_clock::now();
  const StreamStats stats =
      ctx.scan_stream(config, [&](std::span<std::byte> buffer) { return input.read(buffer); }, write, stream);
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();

  if (whole) write_values(options.out, output, options.type, out_format);
  else writer.finish();

  std::cerr << "gpuscan: " << to_string(config.kind) << (config.op == Op::add ? "" : " " + std::string(to_string(config.op)))
            << " scan of " << stats.count << ' ' << to_string(config.type) << " elements (" << algorithm_text << ")"
            << describe_chunks(stats) << " on " << ctx.describe_device() << ": GPU " << format_duration(stats.gpu_ns)
            << ", wall " << format_duration(wall_ns);
  return end_summary(std::cerr, options.verify,
                     [&] { return verify_scan(input.values(), output, config.type, config.kind, config.op); });
}

}  // namespace

Command add_scan_command(CLI::App& app) {
  auto options = std::make_shared<ScanOptions>();
  CLI::App* sub = app.add_subcommand("scan", "Prefix-scan the numbers in a file on the GPU");
  add_type_option(*sub, options->type)->required()->default_str("");
  CLI::Option* op = add_op_option(*sub, options->op);
  CLI::Option* op_file = sub->add_option("--op-file", options->op_file,
                  "a custom operator instead of --op: a GLSL file that defines T, identity() and combine(a, b) "
                  "(docs/scan.md, Custom operators); each element is read and written as its size / the size of "
                  "--type values of --type (no --verify)")
      ->type_name("FILE")
      ->excludes(op);
  sub->add_option("--element-size", options->element_size,
                  "with --op-file: the element size in bytes, checked against the compiled snippet's (its T in a "
                  "std430 array); default: take that")
      ->type_name("BYTES")
      ->transform(unsigned_integer(UINT32_MAX))
      ->needs(op_file);
  sub->add_flag("--inclusive", options->inclusive,
                "inclusive scan: out[i] = in[0] + ... + in[i] (default exclusive: in[0] + ... + in[i-1], and "
                "out[0] the operator's identity)");
  add_algorithm_options(*sub, options->algorithm);
  sub->add_option("--in,-i", options->in, "input file ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--out,-o", options->out, "output file ('-' = standard output)")->required()->type_name("FILE");
  add_format_options(*sub, options->format, options->out_format);
  CLI::Option* budget = add_memory_budget_option(*sub, options->budget);
  sub->add_flag("--verify", options->verify,
                "check the result against the CPU reference (exact for integers and min/max, within rounding "
                "tolerance for float add and mul); exit 1 if it differs");
  sub->add_option("--segments", options->segments,
                  "segmented scan: file of u32 head flags in --format, one per value (non-zero starts a segment; "
                  "the scan restarts there, exclusive gives the segment's first element the identity)")
      ->type_name("FILE");
  sub->add_option("--keys", options->keys,
                  "segmented scan by key: file of keys in --format, one per value; a segment starts where the "
                  "key changes")
      ->type_name("FILE")
      ->excludes(sub->get_option("--segments"));
  sub->add_option("--key-type", options->key_type, "type of the --keys file: u32 (default) or u64")
      ->check(CLI::IsMember({"u32", "u64"}))
      ->type_name("TYPE");
  sub->callback([options] {
    if (options->key_type != "u32" && options->keys.empty())
      throw CLI::ValidationError("--key-type", "--key-type applies to --keys only");
  });
  sub->footer(
      "Examples:\n"
      "  gpuscan scan --type u32 --in a.bin --out b.bin              raw little-endian binary in and out\n"
      "  gpuscan scan --type i32 --in a.txt --out - --format text --inclusive   one number a line, to stdout\n"
      "  seq 1 10 | gpuscan scan --type u32 --in - --out - --format text         0 1 3 6 ... 45\n"
      "  gpuscan scan --type f32 --in a.bin --out b.bin --algorithm reduce-then-scan --verify\n"
      "  gpuscan scan --type i64 --op min --inclusive --in a.txt --out - --format text   running minimum\n"
      "  gpuscan scan --type u32 --in a.bin --out b.bin --api gl --verify       on OpenGL (EGL, headless)\n"
      "  gpuscan scan --type u64 --in big.bin --out b.bin --device-memory-budget 1G   in chunks of 1 GiB or less\n"
      "  gpuscan scan --type f32 --in v.txt --segments f.txt --out - --format text   restart at non-zero flags\n"
      "  gpuscan scan --type i64 --op max --inclusive --in v.txt --keys k.txt --key-type u64 --out - --format text\n"
      "  gpuscan scan --type u32 --op-file affine.glsl --inclusive --in maps.bin --out b.bin   custom operator\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_scan(*options, globals); },
          [options, budget](const GlobalFlags& globals) {
            return scan_conflict(*options, globals, budget->count() > 0);
          }};
}

}  // namespace gpuscan::cli
