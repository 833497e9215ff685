// What a primitive takes and gives on host data, by name: its settings, its input arrays and its output
// arrays. Front ends that know no primitive by itself build on it -- the command-line tool makes a
// subcommand of a signature, the Python module a function -- so that offering a primitive there is one
// registration line (docs/design.md, "How to add a primitive").
//
//   using S = gpuscan::Signature<gpuscan::primitive::RunLength>;
//   gpuscan::primitive::RunLength rle;
//   for (const gpuscan::Setting& s : S::settings(rle)) ...   // "type" (a choice), "non-trivial" (a flag), ...
//   S::inputs(rle);    // {"values", u32}
//   S::outputs(rle);   // {"values", u32}, {"lengths", u32 positions}; with non-trivial: offsets, lengths
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/plan.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan {

// One setting of a description, bound to the description it was asked of.
struct Setting {
  std::string_view name;  // words joined by '-': the CLI's --non-trivial, Python's non_trivial=
  std::string_view help;
  // A flag sets `flag`; a choice takes one of `choices` (choose() sets the description from it).
  bool* flag = nullptr;
  std::vector<std::string_view> choices;
  std::function<void(std::string_view)> choose;
  // The choice of the inputs' element type: the CLI asks for it (--type), the Python module takes it from
  // the first input's dtype.
  bool element_type = false;
};

// What one array holds: elements of the description's type, or positions (u32 indices, counts and
// lengths, which the Python module returns as numpy's intp as numpy's own functions do).
enum class ArrayRole : uint8_t { elements, positions };

struct ArraySpec {
  std::string_view name;  // "values", "lengths"
  DataType type = DataType::u32;
  ArrayRole role = ArrayRole::elements;
  std::string_view help;  // what it holds, a phrase: "each run's length"
};

// Specialized for each primitive a front end offers. Members:
//   static constexpr std::string_view name, summary, notes;   // "rle"; one line; the rules, a paragraph
//   static std::vector<Setting> settings(P&);                  // bound to that description
//   static std::vector<ArraySpec> inputs(const P&), outputs(const P&);   // outputs: those this form writes
//   static typename P::Input input(const P&, std::span<const std::span<const std::byte>> arrays);  // as inputs()
//   static std::vector<std::vector<std::byte>> output(const P&, typename P::Output&&);            // as outputs()
//   static std::string result(const P&, const typename P::Output&);   // a few words: "6 runs"
// The element count of the first input is the count the primitive runs on.
template <class P>
struct Signature;

namespace detail {

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

inline constexpr DataType all_types[] = {DataType::u32, DataType::i32, DataType::f32,
                                         DataType::u64, DataType::i64, DataType::f64};
inline constexpr CompactAlgorithm compact_algorithms[] = {CompactAlgorithm::automatic, CompactAlgorithm::three_pass,
                                                          CompactAlgorithm::single_pass};
inline constexpr CompactPath compact_paths[] = {CompactPath::automatic, CompactPath::ballot,
                                                CompactPath::shared_memory};

// The settings every compaction-based primitive shares: its element type, algorithm and ranking path.
inline void add_compact_settings(std::vector<Setting>& out, CompactConfig& config) {
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

}  // namespace detail

// The signatures are written inline: only the front ends that use them compile them, and the library
// carries none of it.
template <>
struct Signature<primitive::RunLength> {
  using P = primitive::RunLength;
  static constexpr std::string_view name = "rle";
  static constexpr std::string_view summary = "Run-length encode: each run's first element and length";
  static constexpr std::string_view notes =
      "Elements compare as numbers: -0 equals 0, and every NaN is a run of its own. On sorted input the\n"
      "values are the distinct ones and the lengths how often each occurs. The input must fit one\n"
      "storage-buffer binding and hold fewer than 2^32 elements.";
  static std::vector<Setting> settings(P& d) {
    std::vector<Setting> out;
    detail::add_compact_settings(out, d.config);
    out.push_back({.name = "non-trivial",
                   .help = "only the runs of two or more elements: where each starts and its length",
                   .flag = &d.non_trivial});
    return out;
  }
  static std::vector<ArraySpec> inputs(const P& d) {
    return {{"values", d.config.type, ArrayRole::elements, "the elements"}};
  }
  static std::vector<ArraySpec> outputs(const P& d) {
    const ArraySpec lengths{"lengths", DataType::u32, ArrayRole::positions, "each run's length"};
    if (d.non_trivial) return {{"offsets", DataType::u32, ArrayRole::positions, "where each run starts"}, lengths};
    return {{"values", d.config.type, ArrayRole::elements, "the first element of each run"}, lengths};
  }
  static P::Input input(const P&, std::span<const std::span<const std::byte>> arrays) {
    return {.values = arrays[0]};
  }
  static std::vector<std::vector<std::byte>> output(const P& d, P::Output&& out) {
    std::vector<std::vector<std::byte>> arrays;
    arrays.push_back(d.non_trivial ? detail::as_bytes(out.offsets) : std::move(out.values));
    arrays.push_back(detail::as_bytes(out.lengths));
    return arrays;
  }
  static std::string result(const P& d, const P::Output& out) {
    return std::to_string(out.lengths.size()) + (d.non_trivial ? " non-trivial runs" : " runs");
  }
};

}  // namespace gpuscan
