// The compaction policy: which ranking path, algorithm and tile shape a selection, partition or
// run-length encoding runs with, from what the device offers (CompactCaps, filled by either backend) and
// the profile's compact section (core/profile.hpp). It refuses what cannot run, saying why.
#pragma once

#include <cstdint>
#include <string>

#include "core/profile.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/compact.hpp"

namespace gpuscan::core {

// What a device offers a compaction of one element type.
struct CompactCaps {
  WorkgroupLimits workgroup;
  uint32_t max_shared_memory_bytes = 0;
  bool ballots = false;              // subgroup ballots in compute shaders (the ballot path)
  std::string no_ballots;            // the device and what it lacks, for the refusal of an explicit ballot path
  bool subgroup_arithmetic = false;  // else the tile counts are scanned by the multipass plan
  bool single_pass = false;          // the look-back kernels run (never on OpenGL)
  std::string no_single_pass;        // why not, for the refusal of an explicit single-pass request
  uint64_t window = UINT64_MAX;      // elements one binding holds: past it three passes run in windows
};

struct CompactChoice {
  CompactPath path;
  CompactAlgorithm algorithm;
  TileShape shape;
  bool counts_multipass;  // the tile counts are scanned by the multipass (Blelloch) plan
};

// `automatic` takes the single-pass selection where the device runs it, on the ballot path, within one
// binding and with its tile staged in shared memory; partitions always run three-pass. 8-byte elements
// halve the default K until the single-pass stage fits; large single-pass selections take the profile's
// larger K where it fits. `indirect`: the count comes from GPU memory, which must fit one binding.
CompactChoice choose_compaction(const CompactCaps& caps, const TuningProfile& profile, const CompactConfig& config,
                                uint64_t count, bool partition, bool indirect);

// A compaction's path: `automatic` takes the ballot path where the device has subgroup ballots in compute
// shaders, else the shared-memory path; an explicit ballot path without them is Errc::unsupported, `device`
// naming the device and what it lacks ("the device has no subgroup ballots in compute shaders").
CompactPath choose_compact_path(CompactPath requested, bool ballots, const std::string& device);
// Whether a compaction's tile counts are scanned by the multipass (Blelloch) plan: on the shared-memory
// path, which uses no subgroup operation at all, and wherever subgroup arithmetic is missing.
bool compact_counts_multipass(CompactPath path, bool subgroup_arithmetic);
// The K a single-pass selection of `count` elements takes when its config leaves K 0, if the stage fits
// (0: the plain K).
uint32_t compact_large_vectors_per_lane(const TuningProfile& profile, uint64_t count);

}  // namespace gpuscan::core
