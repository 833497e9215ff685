// The shared plan of segmented reductions by offsets (src/core/segment_offsets_plan.hpp), without a GPU:
// which steps a count takes, where temp's arrays sit, and the host checks both backends make.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "core/segment_offsets_plan.hpp"
#include "core/variant_names.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

OffsetsReduceLayout layout(uint64_t count, DataType type, uint32_t w, uint32_t k) {
  return offsets_reduce_layout(count, type, TileShape{w, k}, [](uint64_t tiles) {
    return ScanTemp{tiles * 16, 8};  // a stand-in for the backend's segmented scan
  });
}

// A backend stand-in whose segmented scan is one recognisable dispatch over its four buffers.
OffsetsBackend backend() {
  OffsetsBackend b;
  b.segmented_scan = [](uint64_t count) {
    Program scan;
    cmd::Dispatch d;
    d.key.variant = "segmented_scan";
    for (uint8_t i = 0; i < 4; ++i) d.bindings.push_back(Bind{i, 0, count, 4});
    scan.dispatch(std::move(d));
    return scan;
  };
  b.kernel_suffix = ".test";
  return b;
}

std::vector<std::string> kernels(const Program& program) {
  std::vector<std::string> k;
  for (const Command& c : program.commands)
    if (const auto* d = std::get_if<cmd::Dispatch>(&c)) k.push_back(d->key.variant);
  return k;
}

uint32_t word(const cmd::Dispatch& d, size_t i) {
  EXPECT_EQ(d.params.at(i).kind, Param::Kind::word);
  return d.params.at(i).value;
}

TEST(SegmentOffsetsPlan, StepsByCount) {
  // No values: the identities only, one invocation per segment.
  const Program none = offsets_reduce_program(layout(0, DataType::u32, 32, 1), 0, 100, DataType::u32, Op::add, backend());
  EXPECT_EQ(kernels(none), std::vector<std::string>{"seg_offsets_gather.u32.test"});
  EXPECT_EQ(std::get<cmd::Dispatch>(none.commands[0]).groups_x, 4u);  // ceil(100 / 32)
  // One tile (W = 32, K = 1: 128 elements): bounds, then the tiles; nothing crosses a tile.
  const Program one = offsets_reduce_program(layout(128, DataType::f64, 32, 1), 128, 7, DataType::f64, Op::max, backend());
  EXPECT_EQ(kernels(one), (std::vector<std::string>{"seg_offsets_bounds.test", "seg_offsets_tiles.f64.test"}));
  // Two tiles and more: the scan of the tiles' totals, then the pieces.
  const OffsetsReduceLayout l = layout(129, DataType::f64, 32, 1);
  const Program two = offsets_reduce_program(l, 129, 7, DataType::f64, Op::max, backend());
  EXPECT_EQ(kernels(two), (std::vector<std::string>{"seg_offsets_bounds.test", "seg_offsets_tiles.f64.test",
                                                    "segmented_scan", "seg_offsets_finish.f64.test"}));
  EXPECT_EQ(two.dispatch_count() + 3, two.commands.size());  // a barrier between each two
  const auto& tiles = std::get<cmd::Dispatch>(two.commands[2]);
  EXPECT_EQ(word(tiles, 0), 129u);  // the count
  EXPECT_EQ(word(tiles, 5), 2u);    // the tiles
  EXPECT_EQ(word(tiles, 12), 7u);   // S
  EXPECT_EQ(tiles.bindings.size(), 6u);
  EXPECT_EQ(tiles.key.op, op_constant(Op::max));
  // The scan's buffers lie in temp: values at 0, heads at l.words, output after two arrays of totals,
  // scratch at l.scan_temp (in elements of each binding's unit).
  const auto& scan = std::get<cmd::Dispatch>(two.commands[4]);
  for (const Bind& b : scan.bindings) EXPECT_EQ(b.buffer, offsets_temp);
  EXPECT_EQ(scan.bindings[0].first, 0u);
  EXPECT_EQ(scan.bindings[1].first, l.words / 4);
  EXPECT_EQ(scan.bindings[2].first, 2 * l.tiles * 8 / 4);
  EXPECT_EQ(scan.bindings[3].first, l.scan_temp / 4);
}

TEST(SegmentOffsetsPlan, ScanByOffsetsPlacesTheScan) {
  const Program p = offsets_scan_program(1000, 10, 0, 4032, 64, backend());
  EXPECT_EQ(kernels(p), (std::vector<std::string>{"seg_offsets_heads.test", "segmented_scan"}));
  const auto& scan = std::get<cmd::Dispatch>(p.commands[2]);
  EXPECT_EQ(scan.bindings[0].buffer, offsets_input);
  EXPECT_EQ(scan.bindings[1].buffer, offsets_temp);
  EXPECT_EQ(scan.bindings[2].buffer, offsets_output);
  EXPECT_EQ(scan.bindings[3].first, 4032u / 4);
  EXPECT_EQ(std::get<cmd::Dispatch>(p.commands[0]).groups_x, 16u);  // ceil(1000 / 64)
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
