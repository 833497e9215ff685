// `gpuscan sort`: read a file of keys, sort it on the GPU (Vulkan; stable LSD radix sort), write the
// sorted keys; with --values, the values moved with their keys; with --indices-out, each sorted key's
// position in the input (argsort). One summary line goes to stderr.
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>

#include "backend.hpp"
#include "commands.hpp"
#include "gpuscan/sort_reference.hpp"
#include "format.hpp"
#include "gpuscan/vulkan/sort.hpp"
#include "io.hpp"
#include "options.hpp"
#include "verify.hpp"

namespace gpuscan::cli {
namespace {

struct SortOptions {
  DataType type = DataType::u32;
  std::string in, out;
  std::string values, values_out;  // --values FILE --values-out FILE
  DataType values_type = DataType::u32;
  std::string indices_out;
  std::string bits;  // "E" (bits [0, E)) or "B:E"
  bool descending = false;
  std::string algorithm = "auto";  // auto, multipass, onesweep
  FileFormat format = FileFormat::binary;
  std::optional<FileFormat> out_format;  // --out-format; default: format
  bool verify = false;
};

// "20" -> [0, 20), "8:24" -> [8, 24); nullopt when malformed.
std::optional<std::pair<uint32_t, uint32_t>> parse_bits(const std::string& text) {
  const size_t colon = text.find(':');
  try {
    size_t used = 0;
    if (colon == std::string::npos) {
      const unsigned long end = std::stoul(text, &used);
      if (used != text.size() || end > 64) return std::nullopt;
      return std::pair<uint32_t, uint32_t>{0, static_cast<uint32_t>(end)};
    }
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    size_t used_b = 0;
    const unsigned long begin = std::stoul(a, &used), end = std::stoul(b, &used_b);
    if (used != a.size() || used_b != b.size() || end > 64 || begin > end) return std::nullopt;
    return std::pair<uint32_t, uint32_t>{static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The GPU's result against std::stable_sort: the keys bit for bit, and the values (or positions) moved
// with them.
std::optional<Mismatch> verify_sort(std::span<const std::byte> keys, std::span<const std::byte> values,
                                    const SortConfig& config, bool indices, const SortedBytes& got) {
  const uint32_t kbytes = element_size(config.key_type), vbytes = config.value_bytes;
  auto order_of = [&]<class K>(K) {
    const std::vector<K> k = values_from_bytes<K>(keys);
    return cpu::stable_sort_order<K>(k, config.descending, config.begin_bit, config.end_bit);
  };
  std::vector<uint32_t> order;
  switch (config.key_type) {
    case DataType::u32: order = order_of(uint32_t{}); break;
    case DataType::i32: order = order_of(int32_t{}); break;
    case DataType::f32: order = order_of(float{}); break;
    case DataType::u64: order = order_of(uint64_t{}); break;
    case DataType::i64: order = order_of(int64_t{}); break;
    case DataType::f64: order = order_of(double{}); break;
  }
  Mismatch m;
  m.elements = order.size();
  for (size_t i = 0; i < order.size(); ++i) {
    const bool key_ok = std::memcmp(&got.keys[i * kbytes], &keys[size_t{order[i]} * kbytes], kbytes) == 0;
    bool value_ok = true;
    if (vbytes && indices) {
      uint32_t position;
      std::memcpy(&position, &got.values[i * 4], 4);
      value_ok = position == order[i];
    } else if (vbytes) {
      value_ok = std::memcmp(&got.values[i * vbytes], &values[size_t{order[i]} * vbytes], vbytes) == 0;
    }
    if ((!key_ok || !value_ok) && m.count++ == 0) {
      m.index = i;
      m.got = format_element(got.keys, config.key_type, i) + (value_ok ? "" : " (its value differs)");
      m.expected = format_element(keys, config.key_type, order[i]) + " from input position " + std::to_string(order[i]);
    }
  }
  if (m.count == 0) return std::nullopt;
  return m;
}

// Options that conflict, in the command line's words (commands.hpp, Command::conflict).
// `values_type_given`: --values-type was given, which only --values reads.
std::string sort_conflict(const SortOptions& options, const GlobalFlags& globals, bool values_type_given) {
  const uint32_t key_bits = element_size(options.type) * 8;
  const auto bits = parse_bits(options.bits);
  if (!options.bits.empty() && (!bits || bits->second > key_bits))
    return "--bits is E or B:E with 0 <= B <= E <= " + std::to_string(key_bits) + " (the bits of a --type " +
           std::string(to_string(options.type)) + " key; B == E sorts on no bits), not '" + options.bits + "'";
  if (options.algorithm != "auto" && options.algorithm != "multipass" && options.algorithm != "onesweep")
    return "--algorithm is auto, multipass or onesweep, not '" + options.algorithm + "'";
  if (options.algorithm == "onesweep" && globals.api == Api::gl)
    return "--algorithm onesweep is not offered with " + globals.api_option() +
           " (OpenGL sorts with the multipass algorithm only: Onesweep's look-back needs 64-bit buffer atomics); "
           "use --algorithm multipass or auto";
  if (options.values.empty() != options.values_out.empty()) return "--values and --values-out go together";
  if (values_type_given && options.values.empty()) return "--values-type applies to --values only";
  if (!options.values.empty() && !options.indices_out.empty())
    return "--indices-out and --values exclude each other (the positions are the values)";
  return file_conflict({{"--in", options.in}, {"--values", options.values}},
                       {{"--out", options.out}, {"--values-out", options.values_out}, {"--indices-out", options.indices_out}});
}

int run_sort(const SortOptions& options, GlobalFlags& globals) {
  SortConfig config{.key_type = options.type, .descending = options.descending};
  config.algorithm = options.algorithm == "onesweep"    ? SortAlgorithm::onesweep
                     : options.algorithm == "multipass" ? SortAlgorithm::multipass
                                                        : SortAlgorithm::automatic;
  if (!options.bits.empty()) {
    const auto range = parse_bits(options.bits);  // checked by sort_conflict
    // An empty range (B == E, 0 and 0:0 too) sorts on no bits: every key is equal, all stay in input
    // order. SortConfig reads end_bit 0 as the key's full width, so the empty range goes to the library
    // as [width, width), which it takes as empty (one pass on a digit that is 0 for every key).
    const uint32_t key_bits = element_size(options.type) * 8;
    config.begin_bit = range->first == range->second ? key_bits : range->first;
    config.end_bit = range->first == range->second ? key_bits : range->second;
  }
  const bool indices = !options.indices_out.empty();
  std::vector<std::byte> values;
  if (!options.values.empty()) {
    values = read_values(options.values, options.values_type, options.format);
    config.value_bytes = element_size(options.values_type);
  } else if (indices) {
    config.value_bytes = 4;
  }
  const std::vector<std::byte> keys = read_values(options.in, options.type, options.format);
  const Backend backend = globals.open_backend();
  if (config.algorithm == SortAlgorithm::onesweep && !backend.single_pass_available())  // known only now
    throw Error(Errc::unsupported, "--algorithm onesweep needs 64-bit buffer atomics (Vulkan 1.2 with "
                                   "shaderBufferInt64Atomics), which this device lacks; use --algorithm multipass "
                                   "or auto");
  const auto start = std::chrono::steady_clock::now();
  // OpenGL sorts with the multipass algorithm only (Onesweep: Errc::unsupported).
  const SortedBytes sorted = backend.run(primitive::Sort{config}, {.keys = keys, .values = values, .indices = indices},
                                         keys.size() / element_size(options.type));
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const FileFormat out_format = options.out_format.value_or(options.format);
  write_values(options.out, sorted.keys, options.type, out_format);
  if (!options.values_out.empty()) write_values(options.values_out, sorted.values, options.values_type, out_format);
  if (indices) write_values(options.indices_out, sorted.values, DataType::u32, out_format);
  std::cerr << "gpuscan: sorted " << keys.size() / element_size(options.type) << ' ' << to_string(options.type)
            << " keys" << (options.values.empty() ? "" : " with values") << " in " << sort_passes(config)
            << " passes on " << backend.describe_device() << ": wall " << format_duration(wall_ns);
  return end_summary(std::cerr, options.verify, [&] { return verify_sort(keys, values, config, indices, sorted); });
}

}  // namespace

Command add_sort_command(CLI::App& app) {
  auto options = std::make_shared<SortOptions>();
  CLI::App* sub = app.add_subcommand("sort", "Sort the keys in a file on the GPU (stable radix sort)");
  add_type_option(*sub, options->type)->required()->default_str("");
  sub->add_option("--in,-i", options->in, "input file of keys ('-' = standard input)")->required()->type_name("FILE");
  sub->add_option("--out,-o", options->out, "output file of sorted keys ('-' = standard output)")
      ->required()
      ->type_name("FILE");
  sub->add_option("--values", options->values, "file of values, one per key, moved with their keys")
      ->type_name("FILE");
  CLI::Option* values_type = sub->add_option_function<std::string>(
         "--values-type", [options](const std::string& name) { options->values_type = *parse_data_type(name); },
         "type of --values (4 or 8 bytes, moved as bit patterns): " + data_type_names())
      ->check(CLI::Validator(
          [](std::string& name) { return parse_data_type(name) ? std::string() : "not one of " + data_type_names(); },
          "TYPE"))
      ->type_name("TYPE")
      ->default_str("u32");
  sub->add_option("--values-out", options->values_out, "output file of the values in sorted order")
      ->type_name("FILE");
  sub->add_option("--indices-out", options->indices_out,
                  "output file of each sorted key's input position, u32 (argsort)")
      ->type_name("FILE");
  sub->add_flag("--descending", options->descending, "largest first (ties keep their input order)");
  sub->add_option("--bits", options->bits,
                  "sort on bits [0, E) or [B, E) of the ordered key only: E or B:E (keys that differ only "
                  "elsewhere stay in input order; an empty range, 0 or B:B, keeps the input order)")
      ->type_name("E|B:E");
  sub->add_option("--algorithm", options->algorithm,
                  "auto (multipass), multipass (three dispatches a pass) or onesweep (one dispatch a pass with a "
                  "look-back; needs 64-bit buffer atomics)")
      ->type_name("NAME");
  add_format_options(*sub, options->format, options->out_format);
  sub->add_flag("--verify", options->verify, "check the result against std::stable_sort; exit 1 if it differs");
  sub->footer(
      "Order: floats as numpy's np.sort: -0.0 equals +0.0, NaNs last (first with --descending).\n"
      "Examples:\n"
      "  printf '3\\n1\\n2\\n' | gpuscan sort --type u32 --format text --in - --out -   1 2 3\n"
      "  gpuscan sort --type f32 --in keys.bin --out sorted.bin --indices-out order.bin --verify\n"
      "  gpuscan sort --type u64 --in k.bin --out k2.bin --values v.bin --values-type f64 --values-out v2.bin\n"
      "  gpuscan sort --type u32 --bits 20 --descending --in k.bin --out k2.bin   3 passes instead of 4\n" +
      std::string(exit_codes_help));
  return {sub, [options](GlobalFlags& globals) { return run_sort(*options, globals); },
          [options, values_type](const GlobalFlags& globals) { return sort_conflict(*options, globals, values_type->count() > 0); }};
}

}  // namespace gpuscan::cli
