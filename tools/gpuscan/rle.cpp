// `gpuscan rle`: read a file of numbers, find its runs of equal consecutive elements on the GPU
// (Vulkan or OpenGL), and write the first element of each run and its length -- or, with --non-trivial, where each
// run of two or more starts and its length. The number of runs goes to stderr.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gpuscan/vulkan/run_length.hpp"
#include "io.hpp"
#include "options.hpp"

namespace gpuscan::cli {
namespace {

struct RleOptions {
  DataType type = DataType::u32;
  std::string in;
  std::string values;   // files written: the first element of each run ...
  std::string lengths;  // ... each run's length (u32) ...
  std::string offsets;  // ... and where it starts (u32, --non-trivial)
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;  // --out-format; default: format
  bool non_trivial = false;
};

int run_rle(const RleOptions& options, GlobalFlags& globals) {
  const FileFormat out_format = options.out_format.value_or(options.format);
  const auto input = read_values(options.in, options.type, options.format);
  const uint64_t n = input.size() / element_size(options.type);
  const Backend backend = globals.open_backend();
  CompactConfig config;
  config.type = options.type;
  const primitive::RunLength::Output r =
      backend.run(primitive::RunLength{config, options.non_trivial}, {.values = input}, n);
  const size_t runs = r.lengths.size();
  if (options.non_trivial && !options.offsets.empty())
    write_values(options.offsets, bytes_from_values<uint32_t>(std::span<const uint32_t>(r.offsets)), DataType::u32,
                 out_format);
  if (!options.non_trivial && !options.values.empty()) write_values(options.values, r.values, options.type, out_format);
  if (!options.lengths.empty())
    write_values(options.lengths, bytes_from_values<uint32_t>(std::span<const uint32_t>(r.lengths)), DataType::u32,
                 out_format);
  std::cerr << "gpuscan: " << runs << (options.non_trivial ? " non-trivial runs" : " runs") << " in " << n << ' '
            << to_string(options.type) << " elements\n";
  return 0;
}

}  // namespace

Command add_rle_command(CLI::App& app) {
  auto options = std::make_shared<RleOptions>();
  CLI::App* sub = app.add_subcommand("rle", "Run-length encode a file: each run's first element and length");
  add_type_option(*sub, options->type)->required()->default_str("");
  sub->add_option("--in,-i", options->in, "input file ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--values", options->values, "write the first element of each run here ('-' = standard output)")
      ->type_name("FILE");
  sub->add_option("--lengths", options->lengths, "write each run's length (u32) here ('-' = standard output)")
      ->type_name("FILE");
  sub->add_option("--offsets", options->offsets,
                  "--non-trivial: write where each run starts (u32) here ('-' = standard output)")
      ->type_name("FILE");
  sub->add_flag("--non-trivial", options->non_trivial,
                "only the runs of two or more elements: --offsets and --lengths, no --values");
  add_format_options(*sub, options->format, options->out_format);
  sub->footer(
      "Elements compare as numbers: -0 equals 0, and every NaN is a run of its own. On sorted input the\n"
      "values are the distinct ones and the lengths how often each occurs. The input must fit one\n"
      "storage-buffer binding and hold fewer than 2^32 elements.\n"
      "Examples:\n"
      "  printf '7\\n7\\n7\\n2\\n5\\n5\\n' | gpuscan rle --type u32 --in - --format text --values v.txt --lengths -\n"
      "      v.txt: 7 2 5; standard output: 3 1 2\n"
      "  gpuscan rle --type f64 --in a.bin --non-trivial --offsets starts.bin --lengths lengths.bin\n"
      "The number of runs goes to stderr.\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_rle(*options, globals); },
          [options](const GlobalFlags&) -> std::string {
            if (options->non_trivial && !options->values.empty())
              return "--non-trivial writes --offsets and --lengths, not --values";
            if (!options->non_trivial && !options->offsets.empty())
              return "--offsets needs --non-trivial (the encoding writes --values and --lengths)";
            const int outputs = !options->values.empty() + !options->lengths.empty() + !options->offsets.empty();
            if (outputs == 0)
              return options->non_trivial ? "give --offsets FILE and/or --lengths FILE"
                                          : "give --values FILE and/or --lengths FILE";
            return file_conflict({{"--in", options->in}}, {{"--values", options->values},
                                                           {"--lengths", options->lengths},
                                                           {"--offsets", options->offsets}});
          }};
}

}  // namespace gpuscan::cli
