// The scan plan: which passes run, over which ranges of which buffers, with how many workgroups, and
// where barriers go -- computed from (N, tile size, device limits) alone, with no graphics API in sight.
// Backends (src/vulkan, later src/gl) only execute a plan, so the multi-pass recursion is written once
// and unit-tested without a GPU (tests/plan_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan::core {

enum class Kernel : uint8_t {
  // Multi-pass (scan-then-propagate): tiles of 2·W elements.
  scan_local,    // scan each block of src into dst; optionally write each block's total to aux
  uniform_add,   // combine aux[block] into every element of that block of dst
  // Tile kernels (shaders/common/tile.glsl): tiles of W · vectors-per-lane · 4 elements.
  reduce_tiles,  // write each tile's total of src to aux
  scan_tiles,    // scan each tile of src into dst, starting from aux[tile] if read_offsets
  single_pass,   // chained scan with decoupled look-back; aux is the look-back state (zero at start and end)
  look_ahead,    // G workgroups stride over the tiles, chaining tile totals only; aux as single_pass's
  // Stream compaction: tiles of W · vectors-per-lane · 4 elements.
  compact_count,    // write each tile's number of kept elements of src to aux (u32)
  compact_scatter,  // write the kept elements of src to dst, tile t from aux[t] on; the last tile writes the total
  compact_partition,  // partition: aux holds the INCLUSIVE scan of the tile counts; kept elements from
                      // aux[t-1] (0 for t = 0) on, rejected ones after all kept ones (stable); the last tile writes the total
  compact_single_pass,  // select in one pass: tiles' kept counts chained by decoupled look-back; aux is the
                        // look-back state (zero at start and end); the last tile writes the total
  // Windowed scans (core/windows.hpp): one invocation each, over a window's last element.
  carry_save,    // aux[1] = src[0]: a window's last input, saved before an in-place scan overwrites it
  carry_update,  // aux[0] = src[0] (inclusive) or src[0] (+) aux[1] (exclusive): the running total after a window
  // Indirect counts (core/indirect.hpp): one invocation turns a count in GPU memory into every level's
  // parameters and dispatch commands in aux (temp words).
  indirect_count,
};

// The buffers a plan refers to. input/output are the caller's; temp is the scratch buffer whose size
// Plan::temp_elements gives.
enum class Slot : uint8_t { input, output, temp };

// `count` elements starting `offset` elements into a slot (relative to the slot's own start).
struct Range {
  Slot slot = Slot::input;
  uint64_t offset = 0;
  uint64_t count = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Dispatch {
  Kernel kernel = Kernel::scan_local;
  uint32_t level = 0;          // 0 = the caller's data, 1 = its block sums, 2 = theirs, ...
  uint64_t n = 0;              // elements in this level's array
  uint64_t blocks = 0;         // ceil(n / block_size): one workgroup per block
  uint32_t groups_x = 0;       // the grid: groups_x * groups_y >= blocks, groups_x <= limits
  uint32_t groups_y = 0;
  Range src;                   // scan_local reads it; uniform_add does not use it (src == dst)
  Range dst;                   // scan_local writes it; uniform_add reads and writes it
  Range aux;                   // block sums: written by scan_local if write_block_sums, read by uniform_add
  bool inclusive = false;      // inclusive instead of exclusive (scan_local, scan_tiles, single_pass)
  bool write_block_sums = false;  // scan_local
  bool read_offsets = false;      // scan_tiles
  // The scan of the top level: the one dispatch of a scan plan whose output no higher level offsets
  // (single_pass, or scan_local / scan_tiles of a single block). A carry-in (ScanArgs::initial) is
  // combined in front of everything here, and reaches the other levels through their offsets.
  bool root = false;
  // Windowed scans: the root takes its carry-in from carry[0] (temp, written by an earlier carry_update)
  // instead of from the caller; the executor binds `carry` as binding 3.
  bool carry_from_temp = false;
  Range carry;
  // Indirect counts: n, blocks and the grid come from the words the plan's indirect_count dispatch
  // wrote for this dispatch's level (n, blocks, groups_x above are the upper bound's).
  bool dynamic = false;
  // Windowed compaction (CompactRequest::window), compact_scatter / compact_partition: this dispatch's
  // tile t is tile first_tile + t of the whole input, whose tile offsets (all_tiles of them) aux holds;
  // with output_window, dst holds just output elements [dst.offset, dst.offset + dst.count), and
  // elements bound elsewhere are left to the dispatches that bind them.
  uint64_t first_tile = 0;
  uint64_t all_tiles = 0;
  bool output_window = false;
};

// Everything written by earlier steps (dispatches and fills) is visible to later ones.
struct Barrier {
  friend bool operator==(const Barrier&, const Barrier&) = default;
};

// Zero a range (the single-pass scan's tile counter and states). Always followed by a Barrier.
struct Fill {
  Range range;
};

using Step = std::variant<Dispatch, Barrier, Fill>;

// How much of a plan to build. A plan in windows (core/windows.hpp) repeats the same steps for every
// window, so its length grows with the count; sizing temp and describing the plan need only its first
// windows, at a cost that does not.
enum class PlanExtent : uint8_t {
  full,     // every step: what an executor records
  outline,  // the steps of the first two windows only (the first window, the chaining, a later window);
            // temp_elements and levels are the whole plan's, Plan::windows_left_out counts the rest
};
// How many of a plan's `windows` windows `extent` lists: an outline's first two show every kind of step
// (window 0 with the caller's carry-in, what chains the windows, a window that takes the carry from
// temp); the later ones only repeat them.
uint64_t listed_windows(uint64_t windows, PlanExtent extent);
// Executors call it before recording: an outline (windows_left_out > 0) is for sizing and describing
// only (Errc::invalid_argument, a gpuscan bug, otherwise).
void check_recordable(uint64_t windows_left_out);

struct PlanLimits {
  uint32_t max_groups_x = 65535;  // maxComputeWorkGroupCount[0]
  uint32_t max_groups_y = 65535;  // maxComputeWorkGroupCount[1]
  uint32_t look_ahead_grid = 0;   // G of the look-ahead scan (0: look_ahead_default_grid(0))
};

// The look-ahead scan's default grid (gpuscan/types.hpp says why).
using gpuscan::look_ahead_default_grid;
using gpuscan::look_ahead_grid_per_core;
using gpuscan::look_ahead_unknown_device_grid;

struct ScanRequest {
  uint64_t n = 0;
  uint32_t block_size = 512;  // elements per workgroup tile; a power of two >= 2
  bool inclusive = false;
  uint32_t element_size = 4;  // bytes per element: sizes the single-pass look-back state
  bool temp_zeroed = false;   // single-pass: the state is known to be zero, so no Fill is planned
  PlanLimits limits;
};

struct Plan {
  std::vector<Step> steps;
  uint64_t temp_elements = 0;  // scratch the plan uses, in elements of the scanned type
  uint32_t levels = 0;         // arrays scanned: 1 when one tile holds all, 0 when n == 0
  uint64_t windows_left_out = 0;  // an outline's windows whose steps are not listed; 0: every step is here

  size_t dispatch_count() const;
};

// Temp levels start at multiples of this many elements (64 bytes for 4-byte types), so a level never
// shares a cache line with the one before it and vector loads stay aligned.
inline constexpr uint64_t temp_level_alignment = 16;

// The multi-pass (scan-then-propagate) plan, for buffers of any length:
//   n <= B: one scan_local over the data.
//   n >  B: scan_local with block sums into temp level 1, barrier, the plan for the ceil(n/B) block
//           sums (exclusive, in place in temp), barrier, uniform_add of those offsets into the output.
// Throws gpuscan::Error(Errc::invalid_argument) for a block size that is not a power of two >= 2,
// Errc::too_large when a level needs more workgroups than max_groups_x * max_groups_y.
Plan plan_multipass_scan(const ScanRequest& request);

// Reduce-then-scan (3N bytes moved):
//   n <= B: one scan_tiles over the data.
//   n >  B: reduce_tiles into temp level 1, barrier, the plan for the ceil(n/B) tile totals
//           (exclusive, in place in temp), barrier, scan_tiles of the data reading those offsets.
Plan plan_reduce_then_scan(const ScanRequest& request);

// The single-pass chained scan (2N bytes moved): Fill of the look-back state, Barrier, one
// single_pass dispatch over ceil(n/B) tiles (just the dispatch with request.temp_zeroed). The state
// (a 32-bit tile counter, a 32-bit count of finished workgroups and, per tile, one 64-bit word for
// each 32-bit word of an element -- one for 4-byte types, two for 8-byte ones -- and as many again for
// the ordered look-back's block prefixes) sits at temp element 0;
// temp must start at a binding-aligned offset. The kernel leaves it zeroed.
Plan plan_single_pass(const ScanRequest& request);
uint32_t single_pass_words_per_tile(uint32_t element_size);  // ceil(element_size / 4), at least 1
// The look-ahead scan (Algorithm::look_ahead): like plan_single_pass, with a look_ahead dispatch of
// G = min(tiles, limits.look_ahead_grid or look_ahead_default_grid, limits.max_groups_x) workgroups, workgroup g scanning
// tiles g, g + G, ...; its state is single_pass_state_bytes(tiles) (a tile total per tile) at temp element 0,
// left zeroed.
Plan plan_look_ahead(const ScanRequest& request);
uint64_t look_ahead_grid(uint64_t tiles, const PlanLimits& limits);
uint64_t single_pass_state_bytes(uint64_t tiles, uint32_t element_size = 4);
// The single-pass scan's: room for a block prefix per tile after the tile states, which the ordered
// look-back of float types keeps there (shaders/common/lookback_ordered.glsl; blocks never outnumber tiles).
uint64_t single_pass_scan_state_bytes(uint64_t tiles, uint32_t element_size = 4);

// Device-wide reduction with the tile kernels: reduce_tiles of the input into temp (one total per
// tile), barrier, reduce_tiles of those totals into the next temp level, ... until one tile holds
// what is left, whose reduce_tiles (one workgroup) writes the total to output[0]. The tree depends
// only on n and B, so the result does too (bitwise, for floats). `inclusive` and `temp_zeroed` are
// ignored.
//   n <= B: one reduce_tiles writing output[0], no temp.
//   n == 0: the same over no elements: it writes the identity. Its src is output[0, 0), never read,
//           so that the caller need not bind an input.
Plan plan_reduce(const ScanRequest& request);

// Stream compaction (select_if / select_flagged), three passes: count per tile, scan the counts, scatter.
//   compact_count over ceil(n/B) tiles into temp[0, tiles), barrier, the exclusive u32 scan of those
//   counts in place (the reduce-then-scan plan, or the multipass one, with its own scratch after the
//   counts), barrier, compact_scatter reading the scanned counts as tile offsets.
// With `partition` the counts' scan is inclusive (every tile reads the total kept from the last entry)
// and the last pass is compact_partition, which writes every element.
// With `single_pass` (selection only, not partition): Fill of the look-back state, Barrier, one
// compact_single_pass dispatch over ceil(n/B) tiles (just the dispatch with temp_zeroed); the state is
// laid out as the single-pass scan's (single_pass_state_bytes) at temp element 0.
// n == 0 plans a single compact_scatter of one workgroup over empty ranges: it only writes the count 0.
// The flags and count buffers are not plan slots: the executor binds them to every compaction dispatch.
// Temp elements are u32.
struct CompactRequest {
  uint64_t n = 0;
  uint32_t tile_size = 4096;       // elements per compaction tile; a power of two >= 2
  bool counts_multipass = false;   // scan the tile counts with the multipass plan instead of reduce-then-scan
  uint32_t counts_block_size = 4096;  // the block size of that scan's plan
  bool partition = false;          // partition: an inclusive scan of the counts, compact_partition instead of compact_scatter
  bool single_pass = false;        // one compact_single_pass dispatch (throws Errc::invalid_argument with partition)
  bool temp_zeroed = false;        // single_pass: the state is known to be zero, so no Fill is planned
  // More elements than one binding holds (a multiple of tile_size; 0 = no limit): the three-pass plan runs
  // in windows of this many elements -- compact_count per window into one array of tile counts, the
  // counts' scan over all of them, then compact_scatter / compact_partition per (input window k, output
  // window j) pair that can receive elements (j <= k for a selection, every j for a partition), each
  // writing only what falls in its output window; barriers between the dispatches. The single-pass plan
  // throws Errc::too_large.
  uint64_t window = 0;
  PlanExtent extent = PlanExtent::full;  // outline: the count and scatter dispatches of windows 0 and 1 only
  PlanLimits limits;
};
Plan plan_compact(const CompactRequest& request);

// The grid for `blocks` workgroups: one row while it fits max_groups_x, otherwise rows of
// max_groups_x. Throws Errc::too_large when even max_groups_y rows do not suffice.
void grid_for(uint64_t blocks, const PlanLimits& limits, uint32_t& groups_x, uint32_t& groups_y);

const char* kernel_name(Kernel kernel);  // "scan_local", ...

// A readable listing of the plan (one line per step), for `gpuscan info` and test failure messages; an
// outline's last line says how many windows it leaves out (describe_windows_left_out).
std::string describe(const Plan& plan);
std::string describe_windows_left_out(uint64_t windows);  // "" for 0

}  // namespace gpuscan::core
