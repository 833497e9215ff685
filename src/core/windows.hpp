// Scans and reductions longer than one storage-buffer binding holds (maxStorageBufferRange: 128 MiB on
// lavapipe, 4 GiB - 1 on an H200) or than the shaders' 32-bit indices reach: they run as consecutive
// windows, each an ordinary plan over ranges that one binding holds, and the windows' results are
// chained on the GPU. So any count works whose buffers fit in memory, with the same shaders.
#pragma once

#include <cstdint>
#include <functional>
#include <variant>
#include <vector>

#include "core/plan.hpp"

namespace gpuscan::core {

// The most elements of `element_size` bytes that one binding of at most `max_binding_bytes` holds from
// any element-aligned offset (bindings start at offsets rounded down to `offset_alignment`), rounded
// down to a multiple of 16 elements (so every window after the first starts as vector-aligned as the
// first) and at most 2^31 (the shaders index with 32-bit integers). Throws Errc::too_large when not even
// 16 elements fit.
//   window_elements(128 << 20, 16, 4) == 33554416      // lavapipe, u32
uint64_t window_elements(uint64_t max_binding_bytes, uint64_t offset_alignment, uint32_t element_size);

// Counts from 1 to `max_count` whose plans, between them, take every path that a plan of any count up
// to max_count takes (the prepare_* calls build the pipelines of each). Tile, level, tile-shape and
// algorithm boundaries all fall after powers of two (every threshold is one), so every power of two up
// to max_count and the count after it, and max_count; and, since the last of several windows may take
// any remainder, the same again after one and after two whole windows of `window` elements (0: none).
//   boundary_counts(20, 0) == {1, 2, 3, 4, 5, 8, 9, 16, 17, 20}
std::vector<uint64_t> boundary_counts(uint64_t max_count, uint64_t window);

// Plans one window of `n` elements as if it were the whole array (input[0, n) -> output[0, n), scratch
// from temp element 0); `first` is true for the first window only, so a single-pass planner can skip
// the fill of the look-back state that the previous window's kernel left zeroed.
using WindowScanPlanner = std::function<Plan(uint64_t n, bool first)>;
using WindowReducePlanner = std::function<Plan(uint64_t n)>;

// A scan of n > window elements as ceil(n / window) windows. Window k scans [k·window, ...) with
// planner's plan, shifted; its root dispatch takes the running total of everything before it as its
// carry-in (the caller's carry-in for window 0, temp element C after that: Dispatch::carry_from_temp).
// Between windows:
//   exclusive: carry_save of the window's last input into temp[C + 1] (before the scan, which may be in
//              place), then after the scan carry_update: temp[C] = output[last] (+) temp[C + 1];
//   inclusive: carry_update: temp[C] = output[last].
// Each is one invocation, separated by barriers. C follows the windows' shared scratch (16-aligned).
// An outline (PlanExtent::outline) plans windows 0 and 1 only: temp comes from the first window's plan.
Plan plan_windowed_scan(uint64_t n, uint64_t window, bool inclusive, const WindowScanPlanner& planner,
                        PlanExtent extent = PlanExtent::full);

// One window of a chain: elements [start, start + len) of the whole array, the index-th window.
struct WindowSpan {
  uint64_t index = 0;
  uint64_t start = 0;
  uint64_t len = 0;
};

// The chain both windowed scans share (plan_windowed_scan, and the segmented scans' plan in
// core/segmented_plan.hpp, whose steps are of another type): for each window in order, `scan_window`
// appends the window's scan, which from the second window on takes its carry-in from temp element
// `carry` (elements of the scanned type); the carry_save / carry_update dispatches and barriers between
// windows (as plan_windowed_scan describes) go to `emit`. Temp elements carry and carry + 1 hold them.
// With PlanExtent::outline only windows 0 and 1 are visited. Returns how many windows were not.
using CarryStep = std::variant<Dispatch, Barrier>;
uint64_t chain_windows(uint64_t n, uint64_t window, bool inclusive, uint64_t carry,
                       const std::function<void(const WindowSpan&)>& scan_window,
                       const std::function<void(const CarryStep&)>& emit, PlanExtent extent = PlanExtent::full);

// A reduction of n > window elements: each window reduced (planner's plan) into temp partial k, then
// the partials reduced into output[0]. The combining tree depends on n, the window and the tile size
// only, so float results are reproducible on a given device. An outline lists windows 0 and 1 and the final
// reduction of all the partials.
Plan plan_windowed_reduce(uint64_t n, uint64_t window, const WindowReducePlanner& planner,
                          PlanExtent extent = PlanExtent::full);

}  // namespace gpuscan::core
