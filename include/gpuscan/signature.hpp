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

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

template <>
struct Signature<primitive::RunLength> {
  using P = primitive::RunLength;
  static constexpr std::string_view name = "rle";
  static constexpr std::string_view summary = "Run-length encode: each run's first element and length";
  static constexpr std::string_view notes =
      "Elements compare as numbers: -0 equals 0, and every NaN is a run of its own. On sorted input the\n"
      "values are the distinct ones and the lengths how often each occurs. The input must fit one\n"
      "storage-buffer binding and hold fewer than 2^32 elements.";
  static std::vector<Setting> settings(P& description);
  static std::vector<ArraySpec> inputs(const P& description);
  static std::vector<ArraySpec> outputs(const P& description);
  static P::Input input(const P& description, std::span<const std::span<const std::byte>> arrays);
  static std::vector<std::vector<std::byte>> output(const P& description, P::Output&& out);
  static std::string result(const P& description, const P::Output& out);
};

}  // namespace gpuscan
