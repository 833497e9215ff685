// `gpuscan histogram`: read a file of samples, count them into bins on the GPU (Vulkan or OpenGL), write the
// counts (--out; default: one per line on standard output), optionally check them against the CPU reference.
// One summary line goes to stderr.
#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "gpuscan/reference.hpp"
#include "format.hpp"
#include "io.hpp"
#include "options.hpp"
#include "verify.hpp"

namespace gpuscan::cli {
namespace {

struct HistogramOptions {
  DataType type = DataType::u32;
  uint32_t bins = 0;
  double lower = 0, upper = 0;
  std::string edges;  // a text file of num_bins + 1 edges instead of --bins/--lower/--upper
  std::string counts = "u32";
  bool closed = false;
  std::string in;
  std::string out;  // "" = standard output, in --out-format, else text
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;
  bool verify = false;
};

// The counts as --counts elements (u32 or u64), to --out in --out-format (else --format), or without --out
// to standard output in --out-format (else text).
void write_counts(const HistogramOptions& options, DataType counts, const std::vector<uint64_t>& result) {
  std::vector<std::byte> bytes;
  if (counts == DataType::u64) {
    bytes = bytes_from_values<uint64_t>(result);
  } else {
    const std::vector<uint32_t> narrow(result.begin(), result.end());
    bytes = bytes_from_values<uint32_t>(narrow);
  }
  if (options.out.empty()) write_values("-", bytes, counts, options.out_format.value_or(FileFormat::text));
  else write_values(options.out, bytes, counts, options.out_format.value_or(options.format));
}

// A bound as typed: the shortest text that reads back to it.
std::string format_number(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return {text, end};
}

// Options that conflict or are missing, in the command line's words (commands.hpp, Command::conflict).
// `given(name)`: whether that option was on the command line.
template <class Given>
std::string histogram_conflict(const HistogramOptions& options, Given given) {
  const bool even = given("--bins") || given("--lower") || given("--upper");
  if (!options.edges.empty() && even) return "--edges FILE and --bins/--lower/--upper exclude each other";
  if (options.edges.empty() && !(given("--bins") && given("--lower") && given("--upper")))
    return "give --bins N --lower L --upper U (all three) or --edges FILE";
  if (options.edges.empty() && options.bins == 0) return "--bins must be at least 1";
  if (options.edges.empty() && !(std::isfinite(options.lower) && std::isfinite(options.upper) &&
                                 options.lower < options.upper))
    return "--lower and --upper must be finite with --lower below --upper, not [" + format_number(options.lower) +
           ", " + format_number(options.upper) + ")";
  if (options.counts != "u32" && options.counts != "u64") return "--counts is u32 or u64";
  return file_conflict({{"--in", options.in}, {"--edges", options.edges}}, {{"--out", options.out}});
}

std::optional<Mismatch> verify_counts(std::span<const std::byte> input, DataType type, const HistogramBins& bins,
                                      bool closed, const std::vector<uint64_t>& got) {
  const std::vector<uint64_t> want = visit_type(type, [&](auto tag) {
    using T = decltype(tag);
    return cpu::histogram<T>(values_from_bytes<T>(input), bins.edges, closed);
  });
  Mismatch m;
  m.elements = want.size();
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && m.count++ == 0) {
      m.index = i;
      m.got = std::to_string(got[i]);
      m.expected = std::to_string(want[i]);
    }
  if (m.count == 0) return std::nullopt;
  return m;
}

int run_histogram(const HistogramOptions& options, GlobalFlags& globals) {
  HistogramBins bins;
  if (!options.edges.empty()) {
    const auto bytes = read_values(options.edges, DataType::f64, FileFormat::text);
    bins = HistogramBins::custom(values_from_bytes<double>(bytes));
  } else {
    bins = HistogramBins::even(options.bins, options.lower, options.upper);
  }
  const std::optional<DataType> counts = parse_data_type(options.counts);
  const HistogramConfig config{.type = options.type, .counts = counts.value_or(DataType::u32),
                               .last_bin_closed = options.closed};
  InputSource input(options.in, options.type, options.format, true);
  const Backend backend = globals.open_backend();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<uint64_t> result = backend.run(primitive::Histogram{config, bins}, {.samples = input.values()},
                                                    input.values().size() / element_size(options.type));
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  write_counts(options, config.counts, result);
  std::cerr << "gpuscan: histogram of " << input.values().size() / element_size(options.type) << ' '
            << to_string(options.type) << " samples into " << bins.num_bins() << " bins on "
            << backend.describe_device() << ": wall " << format_duration(wall_ns);
  return end_summary(std::cerr, options.verify,
                     [&] { return verify_counts(input.values(), options.type, bins, options.closed, result); });
}

}  // namespace

Command add_histogram_command(CLI::App& app) {
  auto options = std::make_shared<HistogramOptions>();
  CLI::App* sub = app.add_subcommand("histogram", "Count the samples in a file into bins on the GPU");
  add_type_option(*sub, options->type)->required()->default_str("");
  sub->add_option("--bins", options->bins, "number of even bins over [--lower, --upper)")->type_name("N");
  sub->add_option("--lower", options->lower, "lower bound of the even bins")->type_name("L");
  sub->add_option("--upper", options->upper, "upper bound of the even bins (excluded)")->type_name("U");
  sub->add_option("--edges", options->edges, "text file of num_bins + 1 non-decreasing bin edges instead")
      ->type_name("FILE");
  sub->add_option("--counts", options->counts, "count type: u32 or u64")->type_name("TYPE");
  sub->add_flag("--closed", options->closed, "the last bin includes its upper edge (numpy's np.histogram)");
  sub->add_option("--in,-i", options->in, "input file ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--out,-o", options->out,
                  "write the counts (--counts elements) to FILE in --out-format, else --format ('-' = standard "
                  "output); default: print them to standard output in --out-format, else as text, one a line")
      ->type_name("FILE");
  add_format_options(*sub, options->format, options->out_format);
  sub->add_flag("--verify", options->verify, "check the counts against the CPU reference; exit 1 if they differ");
  sub->footer(
      "Examples:\n"
      "  seq 0 9 | gpuscan histogram --type u32 --bins 2 --lower 0 --upper 10 --in - --format text   5 5\n"
      "  gpuscan histogram --type f32 --edges edges.txt --in a.bin --verify\n"
      "  gpuscan histogram --type u32 --bins 256 --lower 0 --upper 256 --counts u64 --in a.bin --out h.bin\n"
      "  gpuscan histogram --api gl --type f64 --bins 10 --lower 0 --upper 1 --in a.bin   on OpenGL\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_histogram(*options, globals); },
          [options, sub](const GlobalFlags&) {
            return histogram_conflict(*options, [sub](const char* name) { return sub->get_option(name)->count() > 0; });
          }};
}

}  // namespace gpuscan::cli
