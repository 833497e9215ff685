// CPU reference scans and reductions: public and header-only, the oracle gpuscan's tests, the CLI's --verify
// and the demo check the GPU against, for checking results in your own tests too; the library takes the
// host-side meaning of its operators (identity, combine) from here. Every
// operator of gpuscan::Op with the identity and the combine of shaders/common/ops.glsl: integer add
// and mul wrap as C++ unsigned arithmetic does (two's complement for signed types), as the GPU's do;
// min(a, b) is `b < a ? b : a`, as GLSL's; on floats min and max propagate NaN (a NaN operand gives the
// quiet NaN), as numpy's minimum and maximum do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan::cpu {

template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // Unsigned types narrower than int would be promoted to (signed) int first: widen explicitly.
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

// The identity of `op` on T: combine(op, identity(op), x) == x for every x.
template <class T>
T identity(Op op) {
  using L = std::numeric_limits<T>;
  switch (op) {
    case Op::mul: return T(1);
    case Op::min: return L::has_infinity ? L::infinity() : L::max();
    case Op::max: return L::has_infinity ? -L::infinity() : L::lowest();
    case Op::bit_and:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(~std::make_unsigned_t<T>(0));
      return T(0);  // not defined on floats (op_supports)
    default: return T(0);  // add, or, xor
  }
}

template <class T>
T combine(Op op, T a, T b) {
  switch (op) {
    case Op::add: return wrapping_add(a, b);
    case Op::mul: return wrapping_mul(a, b);
    case Op::min:
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      return b < a ? b : a;
    case Op::max:
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      return a < b ? b : a;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::bit_and: return static_cast<T>(a & b);
      case Op::bit_or: return static_cast<T>(a | b);
      case Op::bit_xor: return static_cast<T>(a ^ b);
      default: break;
    }
  }
  return a;  // bitwise operators on floats: refused by op_supports before anything runs
}

// Left to right, one element at a time, from the carry-in `initial` (ScanArgs::initial_bits) if given.
template <class T>
std::vector<T> scan(std::span<const T> in, ScanKind kind, Op op = Op::add, std::optional<T> initial = std::nullopt) {
  std::vector<T> out(in.size());
  T running = initial ? *initial : identity<T>(op);
  for (size_t i = 0; i < in.size(); ++i) {
    if (kind == ScanKind::exclusive) {
      out[i] = running;
      running = combine(op, running, in[i]);
    } else {
      running = combine(op, running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

// Segmented scan: `scan` restarted at every element i with starts[i] != 0 (element 0 always starts a
// segment). Exclusive gives the first element of every segment the identity.
template <class T>
std::vector<T> segmented_scan(std::span<const T> in, std::span<const uint8_t> starts, ScanKind kind,
                              Op op = Op::add) {
  std::vector<T> out(in.size());
  T running = identity<T>(op);
  for (size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || starts[i]) running = identity<T>(op);
    if (kind == ScanKind::exclusive) {
      out[i] = running;
      running = combine(op, running, in[i]);
    } else {
      running = (i == 0 || starts[i]) ? in[i] : combine(op, running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

// Segment starts of `n` elements from u32 flags (non-zero starts one) or from keys (a change of key
// starts one); element 0 always starts one.
inline std::vector<uint8_t> starts_from_flags(std::span<const uint32_t> flags, size_t n) {
  std::vector<uint8_t> s(n);
  for (size_t i = 0; i < n; ++i) s[i] = i == 0 || flags[i] != 0;
  return s;
}
template <class K>
std::vector<uint8_t> starts_from_keys(std::span<const K> keys, size_t n) {
  std::vector<uint8_t> s(n);
  for (size_t i = 0; i < n; ++i) s[i] = i == 0 || keys[i] != keys[i - 1];
  return s;
}

// float_tolerance for a segmented sum: the magnitude restarts with every segment.
template <class T>
std::vector<double> segmented_float_tolerance(std::span<const T> in, std::span<const uint8_t> starts, ScanKind kind) {
  std::vector<double> tol(in.size());
  double depth = 8;
  for (size_t n = in.size(); n > 1; n >>= 1) depth += 2;
  const double eps = std::numeric_limits<T>::epsilon();
  double magnitude = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || starts[i]) magnitude = 0;
    if (kind == ScanKind::inclusive) magnitude += std::fabs(static_cast<double>(in[i]));
    tol[i] = depth * eps * magnitude + 1e-300;
    if (kind == ScanKind::exclusive) magnitude += std::fabs(static_cast<double>(in[i]));
  }
  return tol;
}

// The combination of all elements, left to right; the identity for none.
template <class T>
T reduce(std::span<const T> in, Op op = Op::add) {
  T total = identity<T>(op);
  for (const T& x : in) total = combine(op, total, x);
  return total;
}

// Segmented reduction by offsets (CSR): result s combines in[offsets[s] .. offsets[s+1]) left to right,
// the identity for an empty segment. Offsets must be non-decreasing with offsets.back() <= in.size().
template <class T>
std::vector<T> segmented_reduce(std::span<const T> in, std::span<const uint32_t> offsets, Op op = Op::add) {
  std::vector<T> out(offsets.empty() ? 0 : offsets.size() - 1);
  for (size_t s = 0; s < out.size(); ++s)
    out[s] = reduce<T>(in.subspan(offsets[s], offsets[s + 1] - offsets[s]), op);
  return out;
}

// float_tolerance for segmented_reduce's sums in any association order, one bound per segment.
template <class T>
std::vector<double> segmented_reduce_tolerance(std::span<const T> in, std::span<const uint32_t> offsets) {
  std::vector<double> tol(offsets.empty() ? 0 : offsets.size() - 1);
  double depth = 8;
  for (size_t n = in.size(); n > 1; n >>= 1) depth += 2;
  for (size_t s = 0; s < tol.size(); ++s) {
    double magnitude = 0;
    for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) magnitude += std::fabs(static_cast<double>(in[i]));
    tol[s] = depth * std::numeric_limits<T>::epsilon() * magnitude + 1e-300;
  }
  return tol;
}

// Histogram counts by the definition of include/gpuscan/histogram.hpp: bin i holds the x with
// edges[i] <= x < edges[i + 1] compared as real numbers; with `last_closed` the last bin also holds
// x == edges.back(). NaN and samples outside the edges are not counted. A plain scan of the double edges,
// independent of the GPU's sample-type edge table. Samples and edges are compared as long double, which
// holds every double and every 64-bit integer exactly (static_assert below); 32-bit samples need only double.
//   histogram<float>({0.5f, 2, 3}, {0, 1, 2, 3}, false) == {1, 0, 1}
template <class T>
std::vector<uint64_t> histogram(std::span<const T> in, std::span<const double> edges, bool last_closed) {
  using Exact = std::conditional_t<sizeof(T) == 8 && std::is_integral_v<T>, long double, double>;
  static_assert(std::numeric_limits<Exact>::digits >= std::numeric_limits<T>::digits,
                "the comparison type must hold every sample exactly");
  const size_t bins = edges.size() - 1;
  std::vector<uint64_t> counts(bins, 0);
  for (const T& sample : in) {
    const Exact x = static_cast<Exact>(sample);
    if (std::isnan(x) || x < edges.front()) continue;
    // The last edge <= x opens x's bin; past the last edge only x == edges.back() counts, when closed.
    const size_t i = static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), x,
                                                          [](Exact v, double e) { return v < Exact(e); }) -
                                         edges.begin()) - 1;
    if (i < bins) ++counts[i];
    else if (last_closed && x == Exact(edges.back())) ++counts[bins - 1];
  }
  return counts;
}

// Per-element error bound for a float sum scan computed in any association order: each partial sum is
// off by at most (levels of additions) * eps * (sum of magnitudes so far). `depth` bounds the number of
// additions on any path (a generous 2·log2(n) + 8 covers tree scans and carries).
template <class T>
std::vector<double> float_tolerance(std::span<const T> in, ScanKind kind) {
  std::vector<double> tol(in.size());
  double depth = 8;
  for (size_t n = in.size(); n > 1; n >>= 1) depth += 2;
  const double eps = std::numeric_limits<T>::epsilon();
  double magnitude = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (kind == ScanKind::inclusive) magnitude += std::fabs(static_cast<double>(in[i]));
    tol[i] = depth * eps * magnitude + 1e-300;
    if (kind == ScanKind::exclusive) magnitude += std::fabs(static_cast<double>(in[i]));
  }
  return tol;
}

// Run-length encoding (docs/run_length.md): each run's first element, first index and length, where a run
// starts at element 0 and wherever an element is unequal to the one before, compared as numbers (so
// -0 == 0, and every NaN is a run of its own: Predicate::run_start's rule). Non-trivial runs are the
// runs of two or more.
//   runs<float>({7, 7, NaN, NaN, 2}) == {values {7, NaN, NaN, 2}, starts {0, 2, 3, 4}, lengths {2, 1, 1, 1}}
template <class T>
struct Runs {
  std::vector<T> values;
  std::vector<uint32_t> starts, lengths;
};
template <class T>
Runs<T> runs(std::span<const T> in) {
  Runs<T> r;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || !(in[i] == in[i - 1])) {
      r.values.push_back(in[i]);
      r.starts.push_back(static_cast<uint32_t>(i));
      r.lengths.push_back(0);
    }
    ++r.lengths.back();
  }
  return r;
}

}  // namespace gpuscan::cpu
