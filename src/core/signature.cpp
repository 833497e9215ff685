// The primitives' signatures (gpuscan/signature.hpp): one section per primitive the front ends offer.
#include "gpuscan/signature.hpp"

#include <cstring>
#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan {
namespace {

// A choice among an enum's values, named by its to_string(); choose() of any other name is
// Errc::invalid_argument (front ends check the name against `choices` first).
template <class E, size_t N>
Setting enum_choice(std::string_view name, std::string_view help, E& field, const E (&values)[N]) {
  Setting s{.name = name, .help = help};
  for (E v : values) s.choices.push_back(to_string(v));
  s.choose = [&field, &values, name](std::string_view text) {
    for (E v : values)
      if (to_string(v) == text) {
        field = v;
        return;
      }
    throw Error(Errc::invalid_argument, "unknown " + std::string(name) + " '" + std::string(text) + "'");
  };
  return s;
}

constexpr DataType all_types[] = {DataType::u32, DataType::i32, DataType::f32,
                                  DataType::u64, DataType::i64, DataType::f64};
constexpr CompactAlgorithm compact_algorithms[] = {CompactAlgorithm::automatic, CompactAlgorithm::three_pass,
                                                   CompactAlgorithm::single_pass};
constexpr CompactPath compact_paths[] = {CompactPath::automatic, CompactPath::ballot, CompactPath::shared_memory};

// The settings every compaction-based primitive shares: its element type, algorithm and ranking path.
void add_compact_settings(std::vector<Setting>& out, CompactConfig& config) {
  Setting type = enum_choice("type", "element type", config.type, all_types);
  type.element_type = true;
  out.push_back(std::move(type));
  out.push_back(enum_choice("algorithm", "how the selection is planned (three-pass reads the input twice)",
                            config.algorithm, compact_algorithms));
  out.push_back(enum_choice("path", "how a tile ranks its elements (ballot needs subgroup ballots)", config.path,
                            compact_paths));
}

template <class T>
std::vector<std::byte> as_bytes(const std::vector<T>& values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

}  // namespace

// --- Run-length encoding ------------------------------------------------------------------------------

std::vector<Setting> Signature<primitive::RunLength>::settings(P& d) {
  std::vector<Setting> out;
  add_compact_settings(out, d.config);
  out.push_back({.name = "non-trivial",
                 .help = "only the runs of two or more elements: where each starts and its length",
                 .flag = &d.non_trivial});
  return out;
}

std::vector<ArraySpec> Signature<primitive::RunLength>::inputs(const P& d) {
  return {{"values", d.config.type, ArrayRole::elements, "the elements"}};
}

std::vector<ArraySpec> Signature<primitive::RunLength>::outputs(const P& d) {
  const ArraySpec lengths{"lengths", DataType::u32, ArrayRole::positions, "each run's length"};
  if (d.non_trivial) return {{"offsets", DataType::u32, ArrayRole::positions, "where each run starts"}, lengths};
  return {{"values", d.config.type, ArrayRole::elements, "the first element of each run"}, lengths};
}

primitive::RunLength::Input Signature<primitive::RunLength>::input(const P&,
                                                                   std::span<const std::span<const std::byte>> a) {
  return {.values = a[0]};
}

std::vector<std::vector<std::byte>> Signature<primitive::RunLength>::output(const P& d, P::Output&& out) {
  std::vector<std::vector<std::byte>> arrays;
  arrays.push_back(d.non_trivial ? as_bytes(out.offsets) : std::move(out.values));
  arrays.push_back(as_bytes(out.lengths));
  return arrays;
}

std::string Signature<primitive::RunLength>::result(const P& d, const P::Output& out) {
  return std::to_string(out.lengths.size()) + (d.non_trivial ? " non-trivial runs" : " runs");
}

}  // namespace gpuscan
