// Histogram samples and refusals for the Vulkan and the OpenGL suites (gpu/histogram_test.cpp,
// gl/gl_histogram_test.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "gpuscan/error.hpp"
#include "gpuscan/histogram.hpp"

namespace gpuscan::test {

// Samples around [edges.front(), edges.back()]: uniform over the range widened by a quarter on each side,
// a fifth of them exactly on an edge (as the sample type holds it), and for floats NaN, ±inf and ±0.
template <class T>
std::vector<T> samples(size_t n, const HistogramBins& bins, std::mt19937_64& rng) {
  const double lo = bins.edges.front(), hi = bins.edges.back(), pad = (hi - lo) / 4;
  const double type_lo = static_cast<double>(std::numeric_limits<T>::lowest());
  // The largest double that T holds (a 64-bit maximum rounds up to 2^63 or 2^64 in double).
  const double type_hi = sizeof(T) == 8 && std::is_integral_v<T>
                             ? std::nextafter(static_cast<double>(std::numeric_limits<T>::max()), 0.0)
                             : static_cast<double>(std::numeric_limits<T>::max());
  std::uniform_real_distribution<double> uniform(std::max(type_lo, lo - pad), std::min(type_hi, hi + pad));
  std::vector<T> v(n);
  for (auto& x : v) {
    const uint64_t r = rng() % 20;
    double d = r < 4 ? bins.edges[rng() % bins.edges.size()] : uniform(rng);
    if constexpr (std::is_integral_v<T>) d = std::clamp(std::floor(d), type_lo, type_hi);
    x = static_cast<T>(d);
    if constexpr (std::is_floating_point_v<T>) {
      const T special[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                           -std::numeric_limits<T>::infinity(), T(-0.0), T(0.0)};
      if (r == 19) x = special[rng() % 5];
    }
  }
  return v;
}

// The refusals both backends make alike, each a change of `good` (4 even bins over [0, 4), 64 u32 samples
// from `in` at 0, 16 counts, a temp) passed to `expect(args, code, fragment)`. `in_middle`: the input
// buffer 128 bytes on; `counts_tail`: the counts buffer 8 bytes on.
template <class Args, class View, class Expect>
void expect_common_refusals(const Args& good, const View& in_middle, const View& counts_tail, Expect expect) {
  Args a = good;
  a.bins = HistogramBins::custom({1});
  expect(a, Errc::invalid_argument, "at least one bin");
  a.bins = HistogramBins::custom({0, 2, 1});
  expect(a, Errc::invalid_argument, "must not decrease");
  a.bins = HistogramBins::custom({0, NAN, 1});
  expect(a, Errc::invalid_argument, "NaN");
  a = good;
  a.bins = HistogramBins::even(17, 0, 1);
  expect(a, Errc::buffer_too_small, "counts buffer holds 16");
  a = good;
  a.count = 65;
  expect(a, Errc::buffer_too_small, "input buffer holds 64");
  a = good;
  a.counts = in_middle;
  expect(a, Errc::invalid_argument, "overlap the input");
  a = good;
  a.temp = counts_tail;
  expect(a, Errc::invalid_argument, "temp overlaps the counts");
  a = good;
  a.config.counts = DataType::i32;
  expect(a, Errc::invalid_argument, "u32 or u64");
  a = good;
  a.config.workgroup_size = 48;
  expect(a, Errc::invalid_argument, "power of two");
  a = good;
  a.counts = View{};
  expect(a, Errc::null_handle, "counts");
}

}  // namespace gpuscan::test
