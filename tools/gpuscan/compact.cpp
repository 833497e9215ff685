// `gpuscan compact`: read a file of numbers, keep the elements a predicate (or a flags file) selects,
// on the GPU, write them (with --partition: the kept ones, then the rejected ones, both in input
// order) and print the number kept to stderr. `gpuscan unique`: the same with the run-start predicate
// (with --sort, of the input sorted first: its distinct values, numpy.unique's).
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "gpuscan/compact.hpp"
#include "gpuscan/sort.hpp"
#include "io.hpp"
#include "options.hpp"

namespace gpuscan::cli {
namespace {

struct CompactOptions {
  std::string command;  // "compact" or "unique", for messages
  DataType type = DataType::u32;
  std::string pred;
  std::string in;
  std::string out;
  std::string flags;
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;  // --out-format; default: format
  bool partition = false;
  bool sort = false;  // unique --sort: the radix sort first
  CompactPath path = CompactPath::automatic;
  CompactAlgorithm algorithm = CompactAlgorithm::automatic;
  Predicate predicate;  // parsed from `pred` once the type is known
};

// Options that conflict, in the command line's words (commands.hpp, Command::conflict).
std::string compact_conflict(const CompactOptions& options, const GlobalFlags& globals) {
  if (options.algorithm == CompactAlgorithm::single_pass) {
    if (globals.api == Api::gl)
      return "--algorithm single-pass is not offered with " + globals.api_option() +
             " (the GL backend builds no look-back kernels: they need 64-bit buffer atomics and GL_KHR_shader_subgroup); use --algorithm three-pass or auto";
    if (options.partition)
      return "--partition runs three-pass only (a stable partition must know the total kept before it places a "
             "rejected element), not --algorithm single-pass; use --algorithm three-pass or auto";
    if (options.path == CompactPath::shared_memory)
      return "--algorithm single-pass runs on the ballot path only, not --path shared-memory; use --algorithm "
             "three-pass or auto";
  }
  if (options.sort && options.partition)
    return "--sort writes the distinct values, not every element; leave out --partition (or sort the input with "
           "`gpuscan sort` first)";
  return file_conflict({{"--in", options.in}, {"--flags", options.flags}}, {{"--out", options.out}});
}

int run_compact(CompactOptions& options, GlobalFlags& globals) {
  const auto input = read_values(options.in, options.type, options.format);
  const uint64_t n = input.size() / element_size(options.type);
  std::optional<std::vector<uint32_t>> flags;
  if (!options.flags.empty()) {
    flags = values_from_bytes<uint32_t>(read_values(options.flags, DataType::u32, options.format));
    if (flags->size() < n)
      throw Error(Errc::invalid_argument, "flags file '" + options.flags + "' holds " + std::to_string(flags->size()) +
                                              " flags, fewer than the " + std::to_string(n) + " values of '" +
                                              options.in + "'");
  }
  const Backend backend = globals.open_backend();
  std::vector<std::byte> sorted;
  if (options.sort) {  // stable, numpy's order: NaNs last, -0.0 beside +0.0 (the first in input order kept)
    sorted = backend.run(primitive::Sort{.config = {.key_type = options.type}}, {.keys = input}, n).keys;
  }
  const std::span<const std::byte> values = options.sort ? std::span<const std::byte>(sorted) : input;
  CompactConfig config;
  config.type = options.type;
  config.path = options.path;
  config.algorithm = options.algorithm;
  const auto r = backend.run(
      primitive::Select{.config = config,
                        .flagged = flags.has_value(),
                        .predicate = flags ? PredicateKind::nonzero : options.predicate.kind,
                        .partition = options.partition},
      {.values = values,
       .flags = flags ? std::as_bytes(std::span<const uint32_t>(*flags)) : std::span<const std::byte>(),
       .predicate = options.predicate},
      n);
  const std::vector<std::byte>& output = r.values;
  const uint64_t kept = r.kept;
  write_values(options.out, output, options.type, options.out_format.value_or(options.format));
  std::cerr << "gpuscan: kept " << kept << " of " << n << ' ' << to_string(options.type) << " elements ("
            << (flags ? "flags '" + options.flags + "'" : "predicate " + options.pred)
            << (options.partition ? ", partitioned" : "") << (options.sort ? ", sorted first" : "") << ")\n";
  return 0;
}

// --path and --algorithm, shared by compact and unique.
void add_plan_options(CLI::App& sub, const std::shared_ptr<CompactOptions>& options) {
  sub.add_option_function<std::string>(
         "--path",
         [options](const std::string& name) {
           options->path = name == "ballot"          ? CompactPath::ballot
                           : name == "shared-memory" ? CompactPath::shared_memory
                                                     : CompactPath::automatic;
         },
         "how tiles rank kept elements: auto, ballot or shared-memory")
      ->check(CLI::IsMember({"auto", "ballot", "shared-memory"}))
      ->type_name("PATH");
  sub.add_option_function<std::string>(
         "--algorithm",
         [options](const std::string& name) { options->algorithm = *parse_compact_algorithm(name); },
         "how the selection is planned: auto (single-pass where the device can), three-pass (count, scan "
         "the counts, scatter; any device) or single-pass (one dispatch, look-back over the tiles' counts; "
         "Vulkan and the ballot path only, not with --partition)")
      ->check(CLI::IsMember({"auto", "three-pass", "single-pass"}))
      ->type_name("ALG");
}

}  // namespace

Command add_unique_command(CLI::App& app) {
  auto options = std::make_shared<CompactOptions>();
  options->command = "unique";
  options->pred = "run-start";
  options->predicate = Predicate::run_start();
  CLI::App* sub = app.add_subcommand("unique", "Keep the first element of every run of equal consecutive elements");
  add_type_option(*sub, options->type)->required()->default_str("");
  sub->add_option("--in,-i", options->in, "input file ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--out,-o", options->out, "output file ('-' = standard output)")->required()->type_name("FILE");
  add_format_options(*sub, options->format, options->out_format);
  sub->add_flag("--partition", options->partition,
                "write every element: the first of each run, then the repeats, both in input order");
  sub->add_flag("--sort", options->sort,
                "sort the input first (the stable radix sort, as `gpuscan sort`): write its distinct values in "
                "ascending order, as numpy.unique, for any input");
  add_plan_options(*sub, options);
  sub->footer(
      "Elements compare as numbers: -0 equals 0, and every NaN starts a run of its own. On sorted input the\n"
      "output is the distinct values; --sort sorts first (NaNs last; of equal -0 and 0 the first in input\n"
      "order is kept). The input must fit one storage-buffer binding.\n"
      "Examples:\n"
      "  gpuscan unique --type u32 --in sorted.bin --out distinct.bin\n"
      "  gpuscan unique --type i64 --in ids.bin --out distinct.bin --sort\n"
      "  gpuscan unique --type f64 --in a.txt --out - --format text\n"
      "  gpuscan unique --type u64 --in ids.bin --out distinct.bin --api gl   on OpenGL\n"
      "The number kept goes to stderr.\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_compact(*options, globals); },
          [options](const GlobalFlags& globals) { return compact_conflict(*options, globals); }};
}

Command add_compact_command(CLI::App& app) {
  auto options = std::make_shared<CompactOptions>();
  options->command = "compact";
  CLI::App* sub = app.add_subcommand("compact", "Keep the elements of a file that a predicate or flags select");
  add_type_option(*sub, options->type)->required()->default_str("");
  sub->add_option("--pred,-p", options->pred, std::string("predicate: ") + predicate_forms)->type_name("PRED");
  sub->add_option("--flags", options->flags,
                  "file of u32 flags in --format (kept where non-zero), instead of --pred; at least one per value")
      ->type_name("FILE");
  sub->add_option("--in,-i", options->in, "input file ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--out,-o", options->out, "output file ('-' = standard output)")->required()->type_name("FILE");
  add_format_options(*sub, options->format, options->out_format);
  sub->add_flag("--partition", options->partition,
                "write every element: the kept ones first, then the rejected ones, both in input order");
  add_plan_options(*sub, options);
  sub->callback([sub, options] {
    const bool has_pred = !options->pred.empty(), has_flags = !options->flags.empty();
    if (has_pred == has_flags)
      throw CLI::ValidationError("--pred/--flags", "give exactly one of --pred or --flags; predicates: " +
                                                       std::string(predicate_forms));
    if (has_pred) {
      try {
        options->predicate = parse_predicate(options->pred, options->type);
      } catch (const Error& e) {
        throw CLI::ValidationError("--pred", e.what());
      }
    }
    (void)sub;
  });
  sub->footer(
      "Examples:\n"
      "  gpuscan compact --type u32 --pred gt:100 --in a.bin --out kept.bin\n"
      "  gpuscan compact --type f32 --pred range:-1:1 --in a.txt --out - --format text\n"
      "  gpuscan compact --type i32 --flags f.bin --in a.bin --out p.bin --partition\n"
      "  gpuscan compact --type u64 --pred ge:0x100000000 --in ids.bin --out big.bin\n"
      "  gpuscan compact --type u32 --pred nonzero --in a.bin --out kept.bin --algorithm three-pass\n"
      "  gpuscan compact --type u32 --pred nonzero --in a.bin --out b.bin --api gl   on OpenGL (every type)\n"
      "  gpuscan compact --type u32 --pred run-start --in a.bin --out b.bin --partition   firsts of runs, then repeats\n"
      "The number kept goes to stderr.\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_compact(*options, globals); },
          [options](const GlobalFlags& globals) { return compact_conflict(*options, globals); }};
}

}  // namespace gpuscan::cli
