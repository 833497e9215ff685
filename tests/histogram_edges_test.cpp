// Unit tests for the histogram's edge table (core::to_edge_table): each double edge becomes the smallest
// sample value at or above it, integer edges past the type's range are dropped or clamped, and every
// sample compares with the table as it compares with the double edges.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/histogram_edges.hpp"
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

TEST(HistogramEdges, Refusals) {
  EXPECT_THROW(to_edge_table(HistogramBins::custom({1}), DataType::u32), Error);
  EXPECT_THROW(to_edge_table(HistogramBins::custom({2, 1}), DataType::u32), Error);
  EXPECT_THROW(to_edge_table(HistogramBins::custom({0, NAN}), DataType::f32), Error);
  EXPECT_THROW(to_edge_table(HistogramBins::custom({0, 1}), DataType::f64), Error);
  EXPECT_THROW(HistogramBins::even(0, 0, 1), Error);
}

}  // namespace
}  // namespace gpuscan::core
