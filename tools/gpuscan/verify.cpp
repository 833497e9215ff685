#include "verify.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <limits>
#include <vector>

#include "cpu/reference.hpp"
#include "io.hpp"

namespace gpuscan::cli {
namespace {

template <class T>
std::string shortest(T value) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return {buffer, r.ptr};
}

// Integers and exact float results bit for bit (NaN matches NaN); otherwise within `tolerance`. A sum
// past the type's largest finite value is infinite on the GPU but may be finite in a wider reference.
template <class T, class Want>
bool matches(T got, Want want, double tolerance) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) return std::isnan(got);
    if (tolerance == 0) return std::memcmp(&got, &want, sizeof got) == 0 || got == want;
    const long double g = got, w = want;
    if (std::isinf(w) || std::fabs(w) > std::numeric_limits<T>::max())
      return std::isinf(g) ? std::signbit(g) == std::signbit(w) : std::fabs(g - w) <= tolerance;
    return std::fabs(g - w) <= tolerance;
  } else {
    return got == want;
  }
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

// Compares element by element with `want`; `tolerance(i)` is 0 for an exact comparison.
template <class T, class Want, class Tolerance>
std::optional<Mismatch> compare(std::span<const std::byte> output, const std::vector<T>& got,
                                const std::vector<Want>& want, DataType type, Tolerance tolerance) {
  if (auto m = check_lengths(got.size(), want.size())) return m;
  std::optional<Mismatch> first;
  uint64_t count = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (matches(got[i], want[i], tolerance(i))) continue;
    if (!first) {
      first.emplace();
      first->index = i;
      first->got = format_element(output, type, i);
      first->expected = shortest(want[i]);
      if (tolerance(i) > 0) {
        char tol[32];
        std::snprintf(tol, sizeof tol, "%.3g", static_cast<double>(tolerance(i)));
        first->expected += std::string(" +- ") + tol;
      }
    }
    ++count;
  }
  if (first) {
    first->count = count;
    first->elements = want.size();
  }
  return first;
}

// How exactly `op` on T must match: 0 (bit for bit) for integers and float min/max; for float sums
// the bound of cpu::float_tolerance on the wide reference; for float products a relative
// (2·log2(n) + 8) ulps, as every product rounds once per combination.
template <class T>
double product_tolerance(size_t n, long double want) {
  double depth = 8;
  for (; n > 1; n >>= 1) depth += 2;
  return depth * std::numeric_limits<T>::epsilon() * static_cast<double>(std::fabs(want)) + 1e-300;
}

template <class T>
std::optional<Mismatch> verify_typed(std::span<const std::byte> input, std::span<const std::byte> output,
                                     DataType type, ScanKind kind, Op op, std::span<const uint8_t> starts) {
  const auto in = values_from_bytes<T>(input);
  const auto got = values_from_bytes<T>(output);
  const bool segmented = !starts.empty();
  // The reference in element type U: the plain scan, or the segmented one.
  auto reference = [&](const auto& values, Op o) {
    using U = typename std::decay_t<decltype(values)>::value_type;
    return segmented ? cpu::segmented_scan<U>(values, starts, kind, o) : cpu::scan<U>(values, kind, o);
  };
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add) {
      using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
      const std::vector<Wide> wide(in.begin(), in.end());
      const auto want = reference(wide, Op::add);
      const auto tolerance =
          segmented ? cpu::segmented_float_tolerance<T>(in, starts, kind) : cpu::float_tolerance<T>(in, kind);
      return compare(output, got, want, type, [&](size_t i) { return tolerance[i]; });
    }
    if (op == Op::mul) {
      const auto want = reference(in, op);
      return compare(output, got, want, type, [&](size_t i) { return product_tolerance<T>(in.size(), want[i]); });
    }
  }
  const auto want = reference(in, op);
  return compare(output, got, want, type, [](size_t) { return 0.0; });
}

template <class T>
std::optional<Mismatch> verify_reduce_typed(std::span<const std::byte> input, std::span<const std::byte> result,
                                            DataType type, Op op) {
  const auto in = values_from_bytes<T>(input);
  const auto got = values_from_bytes<T>(result);
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add) {
      using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
      const std::vector<Wide> wide(in.begin(), in.end());
      const std::vector<Wide> want = {cpu::reduce<Wide>(wide)};
      const double tolerance = in.empty() ? 0 : cpu::float_tolerance<T>(in, ScanKind::inclusive).back();
      return compare(result, got, want, type, [&](size_t) { return tolerance; });
    }
    if (op == Op::mul) {
      const std::vector<T> want = {cpu::reduce<T>(in, op)};
      return compare(result, got, want, type, [&](size_t) { return product_tolerance<T>(in.size(), want[0]); });
    }
  }
  const std::vector<T> want = {cpu::reduce<T>(in, op)};
  return compare(result, got, want, type, [](size_t) { return 0.0; });
}

}  // namespace

std::optional<Mismatch> verify_scan(std::span<const std::byte> input, std::span<const std::byte> output,
                                    DataType type, ScanKind kind, Op op, std::span<const uint8_t> starts) {
  return visit_type(type,
                    [&](auto tag) { return verify_typed<decltype(tag)>(input, output, type, kind, op, starts); });
}

std::vector<uint8_t> segment_starts(std::span<const std::byte> heads, uint32_t key_bytes, uint64_t n) {
  if (key_bytes == 0) return cpu::starts_from_flags(values_from_bytes<uint32_t>(heads), n);
  if (key_bytes == 8) return cpu::starts_from_keys<uint64_t>(values_from_bytes<uint64_t>(heads), n);
  return cpu::starts_from_keys<uint32_t>(values_from_bytes<uint32_t>(heads), n);
}

std::optional<Mismatch> verify_reduce(std::span<const std::byte> input, std::span<const std::byte> result,
                                      DataType type, Op op) {
  return visit_type(type, [&](auto tag) { return verify_reduce_typed<decltype(tag)>(input, result, type, op); });
}

int end_summary(std::ostream& err, bool verify, const std::function<std::optional<Mismatch>()>& check) {
  if (!verify) {
    err << '\n';
    return 0;
  }
  const auto mismatch = check();
  err << (mismatch ? ", verification FAILED\n" : ", verified against the CPU reference\n");
  if (mismatch) err << "gpuscan: error: " << to_string(*mismatch) << '\n';
  return mismatch ? 1 : 0;
}

std::string to_string(const Mismatch& m) {
  return "MISMATCH at index " + std::to_string(m.index) + ": got " + m.got + ", expected " + m.expected +
         " (" + std::to_string(m.count) + " of " + std::to_string(m.elements) + " elements differ)";
}

}  // namespace gpuscan::cli
