// The scan plan: which passes run, over which ranges of which buffers, with how many workgroups, and
// where barriers go -- computed from (N, tile size, device limits) alone, with no graphics API in sight.
// Backends (src/vulkan, later src/gl) only execute a plan, so the multi-pass recursion is written once
// and unit-tested without a GPU (tests/plan_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace gpuscan::core {

enum class Kernel : uint8_t {
  scan_local,   // scan each block of src into dst; optionally write each block's total to aux
  uniform_add,  // combine aux[block] into every element of that block of dst
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
  bool inclusive = false;      // scan_local: inclusive instead of exclusive
  bool write_block_sums = false;
};

// Everything written by earlier dispatches is visible to later ones (compute write -> compute
// read/write).
struct Barrier {
  friend bool operator==(const Barrier&, const Barrier&) = default;
};

using Step = std::variant<Dispatch, Barrier>;

struct PlanLimits {
  uint32_t max_groups_x = 65535;  // maxComputeWorkGroupCount[0]
  uint32_t max_groups_y = 65535;  // maxComputeWorkGroupCount[1]
};

struct ScanRequest {
  uint64_t n = 0;
  uint32_t block_size = 512;  // elements per workgroup tile (2·W); a power of two >= 2
  bool inclusive = false;
  PlanLimits limits;
};

struct Plan {
  std::vector<Step> steps;
  uint64_t temp_elements = 0;  // scratch the plan uses, in elements of the scanned type
  uint32_t levels = 0;         // arrays scanned: 1 when one tile holds all, 0 when n == 0

  size_t dispatch_count() const;
};

// Temp levels start at multiples of this many elements (64 bytes for 4-byte types), so a level never
// shares a cache line with the one before it and vector loads stay aligned.
inline constexpr uint64_t temp_level_alignment = 16;

// The multi-pass (scan-then-propagate) plan of seed 001:
//   n <= B: one scan_local over the data.
//   n >  B: scan_local with block sums into temp level 1, barrier, the plan for the ceil(n/B) block
//           sums (exclusive, in place in temp), barrier, uniform_add of those offsets into the output.
// Throws gpuscan::Error(Errc::invalid_argument) for a block size that is not a power of two >= 2,
// Errc::too_large when a level needs more workgroups than max_groups_x * max_groups_y.
Plan plan_multipass_scan(const ScanRequest& request);

// The grid for `blocks` workgroups: one row while it fits max_groups_x, otherwise rows of
// max_groups_x. Throws Errc::too_large when even max_groups_y rows do not suffice.
void grid_for(uint64_t blocks, const PlanLimits& limits, uint32_t& groups_x, uint32_t& groups_y);

// A readable listing of the plan (one line per step), for `gpuscan info` and test failure messages.
std::string describe(const Plan& plan);

}  // namespace gpuscan::core
