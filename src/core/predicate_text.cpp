// The predicate syntax shared by `gpuscan compact --pred` and the Python module (gpuscan::parse_predicate).
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan {
namespace {

std::optional<uint32_t> parse_mask(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// Integers go through int64 so that "-1" for u32 is out of range rather than wrapped.
template <class T>
std::optional<uint32_t> parse_integer(std::string_view text) {
  int64_t wide = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), wide);
  if (ec != std::errc() || end != text.data() + text.size() || wide < int64_t{std::numeric_limits<T>::min()} ||
      wide > int64_t{std::numeric_limits<T>::max()})
    return std::nullopt;
  return Predicate::bits(static_cast<T>(wide));
}

// The bit pattern of one constant of `type`, written as decimal numbers are (f32 as from_chars reads it).
std::optional<uint32_t> parse_constant(std::string_view text, DataType type) {
  if (text.empty()) return std::nullopt;
  switch (type) {
    case DataType::u32: return parse_integer<uint32_t>(text);
    case DataType::i32: return parse_integer<int32_t>(text);
    case DataType::f32: {
      float v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
      return Predicate::bits(v);
    }
    default: return std::nullopt;  // parse_predicate refused other types already
  }
}

}  // namespace

Predicate parse_predicate(std::string_view text, DataType type) {
  if (element_size(type) != 4)
    throw Error(Errc::unsupported, "predicates compare u32, i32 and f32 elements, not " + std::string(to_string(type)));
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
  if (name == "bit") {
    const auto mask = parse_mask(rest);
    if (!mask) throw bad("malformed mask '" + rest + "'");
    return Predicate::bits_set(*mask);
  }
  const std::string type_name(to_string(type));
  if (name == "range") {
    const auto sep = rest.find(':');
    if (sep == std::string::npos) throw bad("range needs LO:HI");
    const auto lo = parse_constant(std::string_view(rest).substr(0, sep), type);
    const auto hi = parse_constant(std::string_view(rest).substr(sep + 1), type);
    if (!lo || !hi) throw bad("malformed bound in '" + rest + "' for type " + type_name);
    return {PredicateKind::in_range, *lo, *hi};
  }
  static const std::pair<const char*, PredicateKind> kinds[] = {
      {"eq", PredicateKind::equal},      {"ne", PredicateKind::not_equal}, {"lt", PredicateKind::less},
      {"le", PredicateKind::less_equal}, {"gt", PredicateKind::greater},   {"ge", PredicateKind::greater_equal}};
  for (const auto& [word, kind] : kinds)
    if (name == word) {
      if (colon == std::string_view::npos) throw bad(name + " needs a constant");
      const auto c = parse_constant(rest, type);
      if (!c) throw bad("malformed constant '" + rest + "' for type " + type_name);
      return {kind, *c, 0};
    }
  throw bad("unknown predicate '" + name + "'");
}

}  // namespace gpuscan
