// The shared plan of segmented reductions by offsets (src/core/segment_offsets_plan.hpp), without a GPU:
// which steps a count takes, where temp's arrays sit, and the host checks both backends make.
#include <gtest/gtest.h>

#include <variant>

#include "core/segment_offsets_plan.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

OffsetsReduceLayout layout(uint64_t count, DataType type, uint32_t w, uint32_t k) {
  return offsets_reduce_layout(count, type, TileShape{w, k}, [](uint64_t tiles) {
    return ScanTemp{tiles * 16, 8};  // a stand-in for the backend's segmented scan
  });
}

std::vector<OffsetsKernel> kernels(const std::vector<OffsetsStep>& steps, size_t* scans = nullptr) {
  std::vector<OffsetsKernel> k;
  for (const OffsetsStep& s : steps) {
    if (const auto* d = std::get_if<OffsetsDispatch>(&s)) k.push_back(d->kernel);
    if (scans && std::holds_alternative<OffsetsScan>(s)) ++*scans;
  }
  return k;
}

TEST(SegmentOffsetsPlan, StepsByCount) {
  const PlanLimits limits;
  // No values: the identities only, one invocation per segment.
  const auto none = plan_offsets_reduce(layout(0, DataType::u32, 32, 1), 0, 100, DataType::u32, limits);
  EXPECT_EQ(kernels(none), std::vector<OffsetsKernel>{OffsetsKernel::gather});
  EXPECT_EQ(std::get<OffsetsDispatch>(none[0]).groups_x, 4u);  // ceil(100 / 32)
  // One tile (W = 32, K = 1: 128 elements): bounds, then the tiles; nothing crosses a tile.
  size_t scans = 0;
  const auto one = plan_offsets_reduce(layout(128, DataType::f64, 32, 1), 128, 7, DataType::f64, limits);
  EXPECT_EQ(kernels(one, &scans), (std::vector<OffsetsKernel>{OffsetsKernel::bounds, OffsetsKernel::tiles}));
  EXPECT_EQ(scans, 0u);
  // Two tiles and more: the scan of the tiles' totals, then the pieces.
  const OffsetsReduceLayout l = layout(129, DataType::f64, 32, 1);
  const auto two = plan_offsets_reduce(l, 129, 7, DataType::f64, limits);
  EXPECT_EQ(kernels(two, &scans), (std::vector<OffsetsKernel>{OffsetsKernel::bounds, OffsetsKernel::tiles,
                                                               OffsetsKernel::finish}));
  EXPECT_EQ(scans, 1u);
  const auto& tiles = std::get<OffsetsDispatch>(two[2]);
  EXPECT_EQ(tiles.words[0], 129u);  // the count
  EXPECT_EQ(tiles.words[5], 2u);    // the tiles
  EXPECT_EQ(tiles.words[12], 7u);   // S
  EXPECT_EQ(tiles.bindings.size(), 6u);
}

TEST(SegmentOffsetsPlan, TempLayout) {
  const OffsetsReduceLayout l = layout(1000, DataType::u64, 32, 1);  // 8 tiles of 128
  EXPECT_EQ(l.tiles, 8u);
  EXPECT_EQ(l.words, 192u);       // 3 · 8 · 8 bytes, rounded up to 64
  EXPECT_EQ(l.scan_temp, 320u);   // words + 16 · 8, rounded up to 64
  EXPECT_EQ(l.bytes, 320u + 128u);
  EXPECT_EQ(l.alignment, 8u);
  EXPECT_EQ(layout(0, DataType::u32, 32, 1).bytes, 0u);
}

TEST(SegmentOffsetsPlan, HostChecks) {
  const std::vector<uint32_t> good = {0, 2, 2, 5}, decreasing = {0, 3, 2}, past = {0, 6}, empty;
  const OffsetsInput in = check_offsets_input(5 * 4, good, DataType::i32);
  EXPECT_EQ(in.count, 5u);
  EXPECT_EQ(in.segments, 3u);
  EXPECT_EQ(in.result_bytes, 12u);
  for (const auto* o : {&decreasing, &past, &empty})
    EXPECT_THROW(check_offsets_input(5 * 4, *o, DataType::i32), Error);
  EXPECT_THROW(check_offsets_input(7, good, DataType::i32), Error);  // not whole values
  EXPECT_THROW(check_offsets_count(100, 99, DataType::u32), Error);
  EXPECT_THROW(check_segment_count(uint64_t{UINT32_MAX} - 1), Error);
  EXPECT_NO_THROW(check_segment_count(uint64_t{UINT32_MAX} - 2));
}

}  // namespace
}  // namespace gpuscan::core
