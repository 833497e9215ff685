// Unit tests for the histogram's edge table (core::to_edge_table): each double edge becomes the smallest
// sample value at or above it, integer edges past the type's range are dropped or clamped, and every
// sample compares with the table as it compares with the double edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "core/histogram_edges.hpp"
#include "core/histogram_plan.hpp"
#include "gpuscan/reference.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

TEST(HistogramEdges, EvenEdgesInDouble) {
  EXPECT_EQ(HistogramBins::even(4, 0.0, 1.0).edges, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  const HistogramBins b = HistogramBins::even(3, 0.1, 0.7);
  EXPECT_EQ(b.edges.back(), 0.7);  // the upper edge is `upper` exactly
  EXPECT_EQ(b.edges[1], 0.1 + (0.7 - 0.1) * 1 / 3);
}

TEST(HistogramEdges, FullU32RangeDropsTheTopEdge) {
  const EdgeTable t = to_edge_table(HistogramBins::even(2, 0, 4294967296.0), DataType::u32);
  EXPECT_EQ(t.words, (std::vector<uint32_t>{0, 2147483648u}));
  EXPECT_EQ(t.searchable, 2u);
  EXPECT_FALSE(t.check_upper);
}

TEST(HistogramEdges, IntegersRoundUpAndClamp) {
  const EdgeTable t = to_edge_table(HistogramBins::custom({-1e12, -2.5, 3, 3.01, 3e9}), DataType::i32);
  EXPECT_EQ(t.words, (std::vector<uint32_t>{0x80000000u, std::bit_cast<uint32_t>(-2), 3, 4}));
  EXPECT_EQ(t.searchable, 4u);
  EXPECT_FALSE(t.check_upper);
  EXPECT_EQ(to_edge_table(HistogramBins::custom({5e9, 6e9}), DataType::u32).searchable, 0u);
}

// For random doubles and floats, x >= edge <=> x >= table value.
TEST(HistogramEdges, FloatComparisonsAreExact) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> d(-4, 4);
  for (int i = 0; i < 20000; ++i) {
    const double e = d(rng);
    const EdgeTable t = to_edge_table(HistogramBins::custom({e, e + 1}), DataType::f32);
    const float v = std::bit_cast<float>(t.words[0]);
    const float near[] = {static_cast<float>(e), std::nextafter(static_cast<float>(e), -INFINITY),
                          std::nextafter(static_cast<float>(e), INFINITY)};
    for (float x : near) ASSERT_EQ(x >= e, x >= v) << "edge " << e << ", sample " << x;
  }
  EXPECT_EQ(std::bit_cast<float>(to_edge_table(HistogramBins::custom({1e300, 2e300}), DataType::f32).words[0]),
            INFINITY);
}

// The f32 kernel's fast accept (shaders/histogram.comp), evaluated as the kernel does in f32, never
// names a bin other than the definition's: random even bins (bounds from 2^-20 to 2^20 in size, 1 to
// 5000 bins, open and closed), samples on and up to 4 floats beside every edge and uniform ones. And
// it is on (a margin below 1/4) for the common ranges.
TEST(HistogramEdges, FloatFastAcceptNamesTheExactBin) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> unit(0, 1);
  size_t accepted = 0;
  for (int round = 0; round < 300; ++round) {
    const double scale_pow = std::ldexp(1.0, static_cast<int>(rng() % 41) - 20);
    const double lower = (unit(rng) - 0.5) * 8 * scale_pow;
    const double upper = lower + (0.01 + unit(rng)) * scale_pow;
    const uint32_t nb = 1 + static_cast<uint32_t>(rng() % 5000);
    const bool closed = rng() % 2;
    const HistogramBins bins = HistogramBins::even(nb, lower, upper);
    HistogramConfig config;
    config.type = DataType::f32;
    config.last_bin_closed = closed;
    const HistogramPlan plan = plan_histogram(bins, config, 1, false, false, false, uint64_t{1} << 40, "limit");
    const float m = plan.accept_margin;
    std::vector<float> xs;
    for (double e : bins.edges) {
      float v = static_cast<float>(e);
      for (int k = 0; k < 4; ++k) v = std::nextafter(v, -INFINITY);
      for (int k = 0; k < 9; ++k, v = std::nextafter(v, INFINITY)) xs.push_back(v);
    }
    for (int i = 0; i < 2000; ++i) xs.push_back(static_cast<float>(lower + (upper - lower) * (unit(rng) * 1.2 - 0.1)));
    // Each accepted sample's bin against the definition's (the last edge <= x: every accepted x lies
    // strictly inside the edges), and all of them together against cpu::histogram.
    std::vector<float> taken;
    std::vector<uint64_t> got(nb, 0);
    for (float x : xs) {
      const float g = (x - plan.lower) * plan.scale;  // the kernel's candidate and tests
      if (!(g > m && g < static_cast<float>(plan.table.searchable))) continue;
      const float c = std::floor(g);
      const float f = g - c;
      if (!(f > m && f < 1.0f - m && static_cast<uint32_t>(c) < plan.table.searchable)) continue;
      const auto above = std::upper_bound(bins.edges.begin(), bins.edges.end(), static_cast<double>(x));
      ASSERT_EQ(above - bins.edges.begin() - 1, static_cast<std::ptrdiff_t>(c))
          << "sample " << x << " accepted into bin " << c << " of " << nb << " over [" << lower << ", " << upper
          << "), margin " << m;
      taken.push_back(x);
      ++got[static_cast<uint32_t>(c)];
    }
    accepted += taken.size();
    ASSERT_EQ(got, cpu::histogram<float>(taken, bins.edges, closed));
  }
  EXPECT_GT(accepted, 0u);
  for (uint32_t nb : {1u, 10u, 256u, 4096u}) {
    HistogramConfig config;
    config.type = DataType::f32;
    const HistogramPlan plan =
        plan_histogram(HistogramBins::even(nb, 0.0, 1.0), config, 1, false, false, false, uint64_t{1} << 40, "limit");
    EXPECT_LT(plan.accept_margin, 0.25f) << nb << " bins over [0, 1)";
  }
  HistogramConfig u32;
  u32.type = DataType::u32;
  EXPECT_EQ(plan_histogram(HistogramBins::even(4, 0.0, 8.0), u32, 1, false, false, false, 1 << 20, "limit").accept_margin,
            1.0f);
}

TEST(HistogramEdges, Refusals) {
  EXPECT_THROW(to_edge_table(HistogramBins::custom({1}), DataType::u32), Error);
  EXPECT_THROW(to_edge_table(HistogramBins::custom({2, 1}), DataType::u32), Error);
  EXPECT_THROW(to_edge_table(HistogramBins::custom({0, NAN}), DataType::f32), Error);
  EXPECT_THROW(HistogramBins::even(0, 0, 1), Error);
}

// A closed last bin takes the largest sample value at or below its edge: x <= 2.5 <=> x <= 2.
TEST(HistogramEdges, ClosedUpperEdgeRoundsDown) {
  const EdgeTable t = to_edge_table(HistogramBins::custom({0, 2.5}), DataType::u32, true);
  EXPECT_EQ(t.words, (std::vector<uint32_t>{0, 2}));
  EXPECT_TRUE(t.check_upper);
  const EdgeTable open = to_edge_table(HistogramBins::custom({0, 2.5}), DataType::u32, false);
  EXPECT_EQ(open.words, (std::vector<uint32_t>{0, 3}));  // x < 2.5 <=> x < 3
  const float f = std::bit_cast<float>(to_edge_table(HistogramBins::custom({0, 0.1}), DataType::f32, true).words[1]);
  EXPECT_LE(static_cast<double>(f), 0.1);
  EXPECT_GT(static_cast<double>(std::nextafter(f, INFINITY)), 0.1);
  // An edge below every sample value: nothing to count; past the top: no upper test.
  EXPECT_EQ(to_edge_table(HistogramBins::custom({-3, -0.5}), DataType::u32, true).searchable, 0u);
  EXPECT_FALSE(to_edge_table(HistogramBins::custom({0, 4294967295.5}), DataType::u32, true).check_upper);
  EXPECT_FALSE(to_edge_table(HistogramBins::custom({0, 1e30}), DataType::u64, true).check_upper);
}

TEST(HistogramEdges, SixtyFourBitTables) {
  const EdgeTable t = to_edge_table(HistogramBins::custom({-1e300, 0.5, 1e19}), DataType::i64, true);
  EXPECT_EQ(t.element_bytes, 8u);
  EXPECT_EQ(t.edges(), 2u);  // 1e19 is past INT64_MAX: dropped
  EXPECT_EQ(t.words, (std::vector<uint32_t>{0, 0x80000000u, 1, 0}));
  const EdgeTable d = to_edge_table(HistogramBins::custom({0.1, 0.2}), DataType::f64, true);
  EXPECT_EQ(d.words.size(), 4u);
  EXPECT_EQ(std::bit_cast<double>(uint64_t{d.words[2]} | uint64_t{d.words[3]} << 32), 0.2);
}

// The kernel's decision (shaders/histogram.comp's bin_of) on the table, written again on the CPU.
template <class T>
T entry(const EdgeTable& t, size_t i) {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(t.words[i]);
  } else {
    return std::bit_cast<T>(uint64_t{t.words[2 * i]} | uint64_t{t.words[2 * i + 1]} << 32);
  }
}

template <class T>
std::vector<uint64_t> counts_from_table(const EdgeTable& t, uint32_t num_bins, bool closed, std::span<const T> in) {
  std::vector<uint64_t> counts(num_bins, 0);
  for (const T x : in) {
    if (t.searchable == 0 || !(x >= entry<T>(t, 0))) continue;
    if (t.check_upper && (closed ? !(x <= entry<T>(t, num_bins)) : !(x < entry<T>(t, num_bins)))) continue;
    uint32_t c = 0;
    while (c + 1 < t.searchable && x >= entry<T>(t, c + 1)) ++c;
    ++counts[c];
  }
  return counts;
}

// Every sample type against the CPU reference, with edges drawn as the bugs of this class hide: fractional
// edges for integer samples, edges a float's ulp apart from samples, equal edges, edges past the type's
// range, open and closed last bins; samples on, beside and between the edges.
template <class T>
void tables_agree_with_the_reference(std::mt19937_64& rng) {
  constexpr bool is_float = std::is_floating_point_v<T>;
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  auto near = [&](double e) -> std::vector<T> {  // sample values on and beside e
    std::vector<T> v;
    for (double d : {std::floor(e) - 1, std::floor(e), std::ceil(e), std::ceil(e) + 1, e})
      if (is_float || (d >= lo && d < hi)) v.push_back(static_cast<T>(d));
    if constexpr (is_float) {
      const T f = static_cast<T>(e);
      v.push_back(std::nextafter(f, -INFINITY));
      v.push_back(std::nextafter(f, INFINITY));
    }
    return v;
  };
  for (int round = 0; round < 3000; ++round) {
    const int num_bins = 1 + static_cast<int>(rng() % 5);
    std::vector<double> edges;
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 70) - 6);  // 2^-6 .. 2^63
    double e = (static_cast<double>(rng() % 2001) - 1000) / 100 * scale;
    for (int i = 0; i <= num_bins; ++i) {
      edges.push_back(e);
      if (rng() % 5) e += static_cast<double>(rng() % 400) / 100 * scale;  // an equal edge now and then
    }
    if (rng() % 7 == 0) edges.back() = std::nextafter(edges.back(), INFINITY);
    std::vector<T> samples;
    for (double edge : edges)
      for (T s : near(edge)) samples.push_back(s);
    const bool closed = rng() % 2;
    const HistogramBins bins = HistogramBins::custom(edges);
    const EdgeTable t = to_edge_table(bins, data_type_of<T>::value, closed);
    ASSERT_EQ(counts_from_table<T>(t, num_bins, closed, samples), cpu::histogram<T>(samples, edges, closed))
        << "edges from " << edges.front() << " to " << edges.back() << (closed ? ", closed" : ", open");
  }
}

TEST(HistogramEdges, EveryTypeAgreesWithTheReference) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  tables_agree_with_the_reference<uint32_t>(rng);
  tables_agree_with_the_reference<int32_t>(rng);
  tables_agree_with_the_reference<float>(rng);
  tables_agree_with_the_reference<uint64_t>(rng);
  tables_agree_with_the_reference<int64_t>(rng);
  tables_agree_with_the_reference<double>(rng);
}

}  // namespace
}  // namespace gpuscan::core
