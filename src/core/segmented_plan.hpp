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
// Longer than one binding (SegmentedRequest::window): consecutive windows as core/windows.hpp chains an
// ordinary scan's, each window the plan above over its range, the windows' scratch shared. What carries
// from one window to the next is the value of the segment still open at its end: the window_carry
// kernels' running total (exclusive: last output (+) last input, which is the last input alone where the
// last element starts a segment, its output being the identity; inclusive: the last output). Every
// seg_scan_tiles of a later window starts its tile 0 from it (carry_from_temp: the levels' other tiles
// get it through their offsets), so it counts up to the window's first head and not past it. A
// window's first element starts a segment where its flag says so, or, for keys, where its key differs
// from the previous window's last one: level-0 dispatches of later windows bind that key too
// (heads_before).
//
// Units: a range counts elements of its array -- T for values, totals and output, the head unit for
// the caller's heads (4 bytes for flags and u32 keys, 8 for u64 keys), u32 for tile heads. Temp holds
// each level's totals and then its tile heads, every array starting at a multiple of 64 bytes.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/indirect.hpp"
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
  // Keys (level 0 of a window after the first): the key before `heads` (at heads.offset - 1) belongs
  // to the array; element 0 starts a segment only where its key differs from that one.
  bool heads_before = false;
  // seg_scan_tiles of a window after the first: tile 0 starts from the running value in temp element
  // carry.offset (elements of the scanned type), written by the carry_update before it.
  bool carry_from_temp = false;
  SegRange carry;
  // Count in GPU memory: n, blocks and the grid come from the indirect words of this level.
  bool dynamic = false;
};

// Besides its own dispatches a segmented plan holds core::Dispatch steps of the scans' machinery:
// carry_save / carry_update between windows (core/windows.hpp) and indirect_count (core/indirect.hpp),
// whose Slot::input / output / temp are the segmented scan's input, output and temp.
using SegStep = std::variant<SegDispatch, Barrier, Dispatch>;

// A core::Range of a step of the scans' machinery as the segmented plan's range (the same slot).
SegRange as_seg(const Range& r);

struct SegmentedRequest {
  uint64_t n = 0;
  uint32_t tile_size = 4096;  // elements per tile (W · K · 4); a power of two >= 2
  bool inclusive = false;
  uint32_t element_size = 4;  // bytes per value
  HeadSource heads = HeadSource::flags;
  PlanLimits limits;
  uint64_t window = 0;  // elements per window (segmented_window); 0 = everything in one
  PlanExtent extent = PlanExtent::full;  // outline: windows 0 and 1 only (core::PlanExtent)
};

struct SegmentedPlan {
  std::vector<SegStep> steps;
  uint64_t temp_bytes = 0;  // scratch the plan uses
  uint32_t levels = 0;      // 1 when one tile holds all, 0 when n == 0
  uint64_t windows_left_out = 0;  // an outline's windows whose steps are not listed (Plan::windows_left_out)

  size_t dispatch_count() const;
};

// Throws Errc::invalid_argument for a tile size that is not a power of two >= 2 or an element size that
// is not 4 or 8, Errc::too_large when a level needs more workgroups than the grid allows.
SegmentedPlan plan_segmented_scan(const SegmentedRequest& request);

// The plan for `count` values in tiles of `tile` elements, in windows of `window` elements (0 = one
// window), refusing (Errc::too_large) a single window past the shaders' 32-bit indices.
SegmentedPlan plan_segmented(uint64_t count, uint64_t tile, DataType type, bool inclusive, HeadSource heads,
                             const PlanLimits& limits, uint64_t window = 0, PlanExtent extent = PlanExtent::full);

// Elements per window when one binding holds `fit` elements of the larger of the value and head units
// (core::window_elements): whole tiles where a tile fits, less one element for keys, which bind the key
// before the window too. Throws Errc::too_large when not even 16 elements remain.
//   segmented_window(33554416, 4096, HeadSource::keys32) == 33550336   // 8191 tiles
uint64_t segmented_window(uint64_t fit, uint64_t tile, HeadSource heads);

// `plan` (made for the upper bound of a count in GPU memory) with the indirect_count dispatch and a
// barrier in front, its dispatches marked dynamic, and the words after its temp (core::plan_indirect's
// counterpart). Every level's tiles are the same size. Throws Errc::too_large for a windowed plan.
SegmentedPlan plan_segmented_indirect(const SegmentedPlan& plan, uint32_t element_size, IndirectRegion* region);

const char* seg_kernel_name(SegKernel kernel);  // "seg_reduce_tiles", "seg_scan_tiles"

// One line per step, as describe(const Plan&).
std::string describe(const SegmentedPlan& plan);

}  // namespace gpuscan::core
