// The segmented scan's plan (include/gpuscan/segmented.hpp): reduce-then-scan over (head, value) pairs
// (shaders/common/segmented.glsl), as data, with no graphics API in sight, like plan.hpp's scans.
//
//   n <= B: one seg_scan_tiles over the data.
//   n >  B: seg_reduce_tiles writes every tile's (head, value) total to temp level 1 (values, and heads
//           as u32), barrier, the plan for those ceil(n/B) pairs -- an INCLUSIVE segmented scan in place,
//           its heads the tile heads -- barrier, seg_scan_tiles of the data, tile t starting from entry
//           t - 1 of the scanned totals (nothing for t = 0).
// The inner levels are inclusive so that the caller's exclusive scan alone restarts at heads with the
// identity: tile t needs everything since the last head before it, whether or not t itself starts a
// segment. The tree of combinations depends only on n and B (and the subgroup size), never on
// scheduling, so float results are reproducible.
//
// Units: a range counts elements of its array -- T for values, totals and output, the head unit for
// the caller's heads (4 bytes for flags and u32 keys, 8 for u64 keys), u32 for tile heads. Temp holds
// each level's totals and then its tile heads, every array starting at a multiple of 64 bytes.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/plan.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

// Where a level finds its segment starts; the value is the shaders' HEADS (specialization constant 8).
enum class HeadSource : uint8_t {
  flags = 0,   // one u32 per element, non-zero starts a segment (the caller's flags, or tile heads in temp)
  keys32 = 1,  // u32 keys: a segment starts where the key differs from the previous element's
  keys64 = 2,  // u64 keys, likewise
};
uint32_t head_unit_bytes(HeadSource source);  // 4, 4, 8

enum class SegKernel : uint8_t {
  seg_reduce_tiles,  // each tile's (head, value) total: values to `totals`, heads to `tile_heads`
  seg_scan_tiles,    // scan each tile of `values` into `out`, restarting at heads; from totals[t - 1] if read_offsets
};

// input: the caller's values; heads: the caller's flags or keys; output: the caller's output; temp: scratch.
enum class SegSlot : uint8_t { input, heads, output, temp };

struct SegRange {
  SegSlot slot = SegSlot::input;
  uint64_t offset = 0;  // in elements of the array's unit (see the top of this file)
  uint64_t count = 0;
  friend bool operator==(const SegRange&, const SegRange&) = default;
};

struct SegDispatch {
  SegKernel kernel = SegKernel::seg_scan_tiles;
  uint32_t level = 0;       // 0 = the caller's data, 1 = its tile totals, ...
  uint64_t n = 0;           // elements of this level's array
  uint64_t blocks = 0;      // tiles: ceil(n / B)
  uint32_t groups_x = 0;
  uint32_t groups_y = 0;
  SegRange values;          // read: this level's values
  SegRange heads;           // read: its heads, as head_source says (tile heads in temp below level 0)
  HeadSource head_source = HeadSource::flags;
  SegRange out;             // seg_scan_tiles writes it (in place in temp below level 0); unused by seg_reduce_tiles
  SegRange totals;          // seg_reduce_tiles writes the tile totals' values; seg_scan_tiles reads their scan
  SegRange tile_heads;      // seg_reduce_tiles writes the tile totals' heads (u32); unused by seg_scan_tiles
  bool inclusive = false;   // seg_scan_tiles: inclusive (always below level 0), or exclusive restarting at heads
  bool read_offsets = false;  // seg_scan_tiles: start tile t from totals[t - 1]
};

using SegStep = std::variant<SegDispatch, Barrier>;

struct SegmentedRequest {
  uint64_t n = 0;
  uint32_t tile_size = 4096;  // elements per tile (W · K · 4); a power of two >= 2
  bool inclusive = false;
  uint32_t element_size = 4;  // bytes per value
  HeadSource heads = HeadSource::flags;
  PlanLimits limits;
};

struct SegmentedPlan {
  std::vector<SegStep> steps;
  uint64_t temp_bytes = 0;  // scratch the plan uses
  uint32_t levels = 0;      // 1 when one tile holds all, 0 when n == 0

  size_t dispatch_count() const;
};

// Throws Errc::invalid_argument for a tile size that is not a power of two >= 2 or an element size that
// is not 4 or 8, Errc::too_large when a level needs more workgroups than the grid allows.
SegmentedPlan plan_segmented_scan(const SegmentedRequest& request);

// The plan for `count` values in tiles of `tile` elements, refusing (Errc::too_large) counts past the
// shaders' 32-bit indices as the other scans do.
SegmentedPlan plan_segmented(uint64_t count, uint64_t tile, DataType type, bool inclusive, HeadSource heads,
                             const PlanLimits& limits);

const char* seg_kernel_name(SegKernel kernel);  // "seg_reduce_tiles", "seg_scan_tiles"

// One line per step, as describe(const Plan&).
std::string describe(const SegmentedPlan& plan);

}  // namespace gpuscan::core
