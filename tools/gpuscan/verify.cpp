#include "verify.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "cpu/reference.hpp"
#include "io.hpp"

namespace gpuscan::cli {
namespace {

std::string shortest(double value) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return {buffer, r.ptr};
}

// Length differences: the first index past the shorter array.
std::optional<Mismatch> check_lengths(uint64_t got_n, uint64_t want_n) {
  if (got_n == want_n) return std::nullopt;
  Mismatch m;
  m.index = std::min(got_n, want_n);
  m.count = std::max(got_n, want_n) - m.index;
  m.elements = want_n;
  m.got = got_n < want_n ? "nothing (output has " + std::to_string(got_n) + " elements)" : "an extra element";
  m.expected = got_n < want_n ? "an element" : "nothing (input has " + std::to_string(want_n) + " elements)";
  return m;
}

template <class T>
std::optional<Mismatch> verify_exact(std::span<const std::byte> input, std::span<const std::byte> output,
                                     DataType type, ScanKind kind) {
  const auto in = values_from_bytes<T>(input);
  const auto got = values_from_bytes<T>(output);
  const auto want = cpu::scan<T>(in, kind);
  if (auto m = check_lengths(got.size(), want.size())) return m;
  std::optional<Mismatch> first;
  uint64_t count = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (!first) {
      first.emplace();
      first->index = i;
      first->got = format_element(output, type, i);
      first->expected = format_element(std::as_bytes(std::span<const T>(want)), type, i);
    }
    ++count;
  }
  if (first) {
    first->count = count;
    first->elements = want.size();
  }
  return first;
}

bool float_matches(float got, double want, double tolerance) {
  if (std::isnan(want)) return std::isnan(got);
  const double g = got;
  // A sum past FLT_MAX is infinite in f32 but finite in the double reference.
  if (std::isinf(want) || std::fabs(want) > std::numeric_limits<float>::max())
    return std::isinf(g) ? std::signbit(g) == std::signbit(want) : std::fabs(g - want) <= tolerance;
  return std::fabs(g - want) <= tolerance;
}

std::optional<Mismatch> verify_f32(std::span<const std::byte> input, std::span<const std::byte> output,
                                   ScanKind kind) {
  const auto in = values_from_bytes<float>(input);
  const auto got = values_from_bytes<float>(output);
  const std::vector<double> in_double(in.begin(), in.end());
  const auto want = cpu::scan<double>(in_double, kind);
  const auto tolerance = cpu::float_tolerance<float>(in, kind);
  if (auto m = check_lengths(got.size(), want.size())) return m;
  std::optional<Mismatch> first;
  uint64_t count = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (float_matches(got[i], want[i], tolerance[i])) continue;
    if (!first) {
      char tol[32];
      std::snprintf(tol, sizeof tol, "%.3g", tolerance[i]);
      first.emplace();
      first->index = i;
      first->got = format_element(output, DataType::f32, i);
      first->expected = shortest(want[i]) + " +- " + tol;
    }
    ++count;
  }
  if (first) {
    first->count = count;
    first->elements = want.size();
  }
  return first;
}

}  // namespace

std::optional<Mismatch> verify_scan(std::span<const std::byte> input, std::span<const std::byte> output,
                                    DataType type, ScanKind kind) {
  switch (type) {
    case DataType::u32: return verify_exact<uint32_t>(input, output, type, kind);
    case DataType::i32: return verify_exact<int32_t>(input, output, type, kind);
    case DataType::f32: return verify_f32(input, output, kind);
  }
  return std::nullopt;
}

std::string to_string(const Mismatch& m) {
  return "MISMATCH at index " + std::to_string(m.index) + ": got " + m.got + ", expected " + m.expected +
         " (" + std::to_string(m.count) + " of " + std::to_string(m.elements) + " elements differ)";
}

}  // namespace gpuscan::cli
