// The predicate syntax shared by `gpuscan compact --pred` and the Python module (gpuscan::parse_predicate).
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan {
namespace {

// A mask as wide as the element type's bit pattern (32 or 64 bits).
std::optional<uint64_t> parse_mask(std::string_view text, DataType type) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (element_size(type) == 4 && v > std::numeric_limits<uint32_t>::max()) return std::nullopt;
  return v;
}

// One constant parsed, or why not: malformed text, or a number the element type cannot hold.
struct Constant {
  enum Status { ok, malformed, out_of_range } status = malformed;
  uint64_t bits = 0;
};

// Integers: decimal or 0x hex (as bit masks are written), after an optional '-'. The magnitude is
// checked against the type's range before it is converted, so that "-1" for u32 or u64 is out of range
// rather than wrapped.
template <class T>
Constant parse_integer(std::string_view text) {
  const bool negative = text.starts_with('-');
  std::string_view digits = text.substr(negative ? 1 : 0);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  uint64_t magnitude = 0;  // from_chars reads no sign into an unsigned type: "--1" and "0x-1" stay malformed
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || end != digits.data() + digits.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range))
    return {};
  // |min| (0, or 2^(bits-1) for a signed T) and max both fit in uint64.
  constexpr uint64_t max = std::numeric_limits<T>::max();
  constexpr uint64_t min_magnitude = std::is_signed_v<T> ? max + 1 : 0;
  if (ec == std::errc::result_out_of_range || magnitude > (negative ? min_magnitude : max))
    return {Constant::out_of_range};
  // Two's complement negation in uint64, then the value's bits in T (modular since C++20).
  const uint64_t value = negative ? ~magnitude + 1 : magnitude;
  return {Constant::ok, Predicate::bits(static_cast<T>(value))};
}

// Floats as from_chars reads them (1.5e3, inf, nan). A non-zero constant that rounds to 0 is out of
// range, as is one beyond the largest value: the comparison would be another than the one written.
template <class T>
Constant parse_float(std::string_view text) {
  T v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (end != text.data() + text.size()) return {};
  if (ec == std::errc::result_out_of_range) return {Constant::out_of_range};
  if (ec != std::errc()) return {};
  return {Constant::ok, Predicate::bits(v)};
}

// The bit pattern of one constant of `type`.
Constant parse_constant(std::string_view text, DataType type) {
  if (text.empty()) return {};
  switch (type) {
    case DataType::u32: return parse_integer<uint32_t>(text);
    case DataType::i32: return parse_integer<int32_t>(text);
    case DataType::f32: return parse_float<float>(text);
    case DataType::u64: return parse_integer<uint64_t>(text);
    case DataType::i64: return parse_integer<int64_t>(text);
    case DataType::f64: return parse_float<double>(text);
  }
  return {};
}

// The values a constant of `type` may take, for out-of-range errors.
std::string constant_range(DataType type) {
  switch (type) {
    case DataType::u32: return "0 to 4294967295";
    case DataType::i32: return "-2147483648 to 2147483647";
    case DataType::u64: return "0 to 18446744073709551615";
    case DataType::i64: return "-9223372036854775808 to 9223372036854775807";
    case DataType::f64: return "0, inf, nan, or a magnitude from 4.9e-324 to 1.7976931348623157e+308";
    default: return "0, inf, nan, or a magnitude from 1.4e-45 to 3.4028235e+38";
  }
}

}  // namespace

Predicate parse_predicate(std::string_view text, DataType type) {
  const auto colon = text.find(':');
  const std::string name(text.substr(0, colon));
  const std::string rest(colon == std::string_view::npos ? "" : text.substr(colon + 1));
  const auto bad = [&](const std::string& why) {
    return Error(Errc::invalid_argument,
                 "invalid predicate '" + std::string(text) + "': " + why + "; valid forms: " + predicate_forms);
  };
  if (name == "nonzero") {
    if (colon != std::string_view::npos) throw bad("nonzero takes no constant");
    return Predicate::nonzero();
  }
  if (name == "run-start") {
    if (colon != std::string_view::npos) throw bad("run-start takes no constant");
    return Predicate::run_start();
  }
  if (name == "bit") {
    const auto mask = parse_mask(rest, type);
    if (!mask) throw bad("malformed mask '" + rest + "'");
    return Predicate::bits_set(*mask);
  }
  const std::string type_name(to_string(type));
  const auto out_of_range = [&](const std::string& what) {
    return what + " is out of range for type " + type_name + " (" + constant_range(type) + ")";
  };
  if (name == "range") {
    const auto sep = rest.find(':');
    if (sep == std::string::npos) throw bad("range needs LO:HI");
    const std::string_view bounds[2] = {std::string_view(rest).substr(0, sep), std::string_view(rest).substr(sep + 1)};
    Constant c[2];
    for (int i = 0; i < 2; ++i) {
      c[i] = parse_constant(bounds[i], type);
      if (c[i].status == Constant::malformed) throw bad("malformed bound in '" + rest + "' for type " + type_name);
      if (c[i].status == Constant::out_of_range)
        throw bad(out_of_range("bound '" + std::string(bounds[i]) + "'"));
    }
    return {PredicateKind::in_range, c[0].bits, c[1].bits};
  }
  static const std::pair<const char*, PredicateKind> kinds[] = {
      {"eq", PredicateKind::equal},      {"ne", PredicateKind::not_equal}, {"lt", PredicateKind::less},
      {"le", PredicateKind::less_equal}, {"gt", PredicateKind::greater},   {"ge", PredicateKind::greater_equal}};
  for (const auto& [word, kind] : kinds)
    if (name == word) {
      if (colon == std::string_view::npos) throw bad(name + " needs a constant");
      const Constant c = parse_constant(rest, type);
      if (c.status == Constant::malformed) throw bad("malformed constant '" + rest + "' for type " + type_name);
      if (c.status == Constant::out_of_range) throw bad(out_of_range("constant '" + rest + "'"));
      return {kind, c.bits, 0};
    }
  throw bad("unknown predicate '" + name + "'");
}

}  // namespace gpuscan
