// The scan policy: which algorithm and tile shape a scan runs with, from the profile's scan section, and
// the look-back's spin limit and tiles per workgroup (its look_back section, which the single-pass
// selection shares), as one function of what the device offers (DeviceCaps, filled by either backend),
// its tuning profile (core/profile.hpp), the config and the count. The backends refuse what their device
// cannot run (with their own messages) before they ask; what is left to choose is chosen here.
#pragma once

#include <cstdint>
#include <string>

#include "core/profile.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

// What a device offers a scan of one element type.
struct DeviceCaps {
  WorkgroupLimits workgroup;          // the most invocations, the widest subgroup
  bool subgroup_arithmetic = false;   // subgroup arithmetic (with shuffles) for the type: reduce-then-scan
  bool single_pass = false;           // the look-back kernels run for the type (never on OpenGL)
};

struct ScanChoice {
  Algorithm algorithm;
  TileShape shape;             // scan_tile_shape's (a custom operator: tile_shape's)
  uint64_t single_pass_limit;  // the most elements `automatic` gives the single-pass scan here
};

// `automatic`: the single-pass scan where it runs, the offsets are vector-aligned, the input is longer
// than one plain tile and at most single_pass_auto_limit; then, for deterministic exclusive f32 scans up to
// the profile's look_ahead_deterministic_f32_max, the look-ahead scan under the same conditions; else
// reduce-then-scan where subgroup arithmetic is there, else multipass. Custom operators run multipass. An
// explicit algorithm is kept (the backend has refused it already if the device cannot run it).
ScanChoice choose_scan(const DeviceCaps& caps, const TuningProfile& profile, const ScanConfig& config, uint64_t count,
                       bool vector_aligned = true);

// The look-back's polls per round for a requested limit (0: the profile's default), within its cap.
uint32_t spin_limit(const TuningProfile& profile, uint32_t requested);
// The tiles a single-pass workgroup takes in turn in a dispatch of `tiles` tiles for a requested count
// (0: the profile's default where there are more than several_tiles_min_tiles tiles, else 1), within its cap.
uint32_t tiles_per_workgroup(const TuningProfile& profile, uint32_t requested, uint64_t tiles);
}  // namespace gpuscan::core
