// CPU reference scans, used by the tests and by the CLI's --verify and demo. Integer addition wraps as
// C++ unsigned arithmetic does (two's complement for i32), as the GPU's does.
#pragma once

#include <cmath>
#include <cstdint>
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
std::vector<T> scan(std::span<const T> in, ScanKind kind) {
  std::vector<T> out(in.size());
  T running{};
  for (size_t i = 0; i < in.size(); ++i) {
    if (kind == ScanKind::exclusive) {
      out[i] = running;
      running = wrapping_add(running, in[i]);
    } else {
      running = wrapping_add(running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

// Per-element error bound for a float scan computed in any association order: each partial sum is
// off by at most (levels of additions) * eps * (sum of magnitudes so far). `depth` bounds the number of
// additions on any path (a generous 2·log2(n) + 8 covers tree scans and carries).
template <class T>
std::vector<double> float_tolerance(std::span<const T> in, ScanKind kind) {
  std::vector<double> tol(in.size());
  double depth = 8;
  for (size_t n = in.size(); n > 1; n >>= 1) depth += 2;
  const double eps = std::is_same_v<T, float> ? 1.1920929e-7 : 2.220446049250313e-16;
  double magnitude = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (kind == ScanKind::inclusive) magnitude += std::fabs(static_cast<double>(in[i]));
    tol[i] = depth * eps * magnitude + 1e-30;
    if (kind == ScanKind::exclusive) magnitude += std::fabs(static_cast<double>(in[i]));
  }
  return tol;
}

}  // namespace gpuscan::cpu
