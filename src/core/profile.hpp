// Tuning profiles: every device-dependent number the policies use, one set per device that was measured,
// and a conservative set for every other device. Internal: the numbers
// themselves and the measurements behind them are in core/tuning.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/tuning.hpp"
#include "gpuscan/sort.hpp"

namespace gpuscan::core {

// Each primitive's policy reads its own section: the scan's (core/scan_policy.hpp), the look-back's that
// every chained kernel shares (single-pass scans and selections), the compaction's
// (core/compact_policy.hpp) and the sort's (core/sort_policy.hpp). The defaults are the plain ones (the
// conservative profile's): no large or small tiles, automatic's single-pass limit 2^21, one tile per
// workgroup, no caps, the multipass sort. The thresholds are the H200's, so that a profile switching a
// rule on states only its flag and its numbers.
struct ScanTuning {
  // Single-pass tile shapes (core::single_pass_shape). Large tiles: above large_tile_min_elements,
  // exclusive 4-byte scans take K = large_tile_vectors_per_lane, inclusive u32/i32 scans W =
  // inclusive_large_tile_workgroup_size with that K. Small tiles: exclusive u32/i32 scans of at most
  // small_tile_max_elements take K = small_tile_vectors_per_lane.
  bool large_tiles = false;
  uint64_t large_tile_min_elements = core::large_tile_min_elements;
  uint32_t large_tile_vectors_per_lane = default_vectors_per_lane;
  uint32_t inclusive_large_tile_workgroup_size = default_workgroup_size;
  bool small_tiles = false;
  uint64_t small_tile_max_elements = core::small_tile_max_elements;
  uint32_t small_tile_vectors_per_lane = default_vectors_per_lane;
  // Reduce-then-scan of 8-byte types above large_tile_min_elements: this W (0: the plain default).
  uint32_t large_eight_byte_rts_workgroup_size = 0;

  // The most elements `automatic` gives the single-pass scan (core::single_pass_auto_limit), by type and
  // kind, and for the ordered (deterministic float) look-back.
  struct AutoLimits {
    uint64_t exclusive_four_byte = plain_single_pass_auto_limit;
    uint64_t inclusive_four_byte_integer = plain_single_pass_auto_limit;
    uint64_t other = plain_single_pass_auto_limit;
    uint64_t ordered = plain_single_pass_auto_limit;
    uint64_t ordered_eight_byte = plain_single_pass_auto_limit;
  } auto_limits;

  // Deterministic exclusive f32 scans longer than the ordered look-back's limit and up to this many
  // elements: `automatic` takes the look-ahead scan, whose fixed tree gives the same bits every run
  // (0: never; then reduce-then-scan, as for the rest).
  uint64_t look_ahead_deterministic_f32_max = 0;
};

struct LookBackTuning {
  // Polls per round: the default for a config's spin_limit 0, and the cap on any request.
  uint32_t default_spin_limit = core::default_spin_limit;
  uint32_t max_spin_limit = UINT32_MAX;
  // Tiles a workgroup takes in turn: default_tiles_per_workgroup where a dispatch has more than
  // several_tiles_min_tiles tiles (else 1), and the cap on any request.
  uint32_t default_tiles_per_workgroup = 1;
  uint64_t several_tiles_min_tiles = core::several_tiles_min_tiles;
  uint32_t max_tiles_per_workgroup = UINT32_MAX;
};

struct CompactTuning {
  // The single-pass selection's K above large_tile_min_elements where the stage fits (0: the plain K).
  uint32_t large_tile_vectors_per_lane = 0;
  uint64_t large_tile_min_elements = core::large_tile_min_elements;
};

struct HistogramTuning {
  // The most samples one invocation counts (core::histogram_groups raises the grid to keep under it, past
  // HistogramConfig::max_workgroups if need be).
  uint32_t max_samples_per_invocation = UINT32_MAX;
};

struct SortTuning {
  // What SortAlgorithm::automatic runs.
  SortAlgorithm automatic = SortAlgorithm::multipass;
};

struct TuningProfile {
  std::string_view name;    // "nvidia-h200", "nvidia-h100", "lavapipe", "conservative"
  std::string_view source;  // one sentence: where its numbers came from
  ScanTuning scan;
  LookBackTuning look_back;
  CompactTuning compact;
  HistogramTuning histogram;
  SortTuning sort;
};

// Measured on an NVIDIA H200 (core/tuning.hpp, bench/RESULTS.md).
const TuningProfile& h200_profile();
// An H100: the H200's numbers (the same SM), its single-pass shapes measured there too.
const TuningProfile& h100_profile();
// Mesa's lavapipe, the CPU device the tests run on: plain shapes, its loop-iteration limit respected.
const TuningProfile& lavapipe_profile();
// Every device without measurements: plain shapes and limits, correct whatever the subgroup size or
// scheduling (the look-back's fallback never assumes forward progress).
const TuningProfile& conservative_profile();

inline constexpr uint32_t vendor_nvidia = 0x10DE;
inline constexpr uint32_t vendor_mesa = 0x10005;  // VK_VENDOR_ID_MESA: Mesa's software devices

// The profile of a Vulkan device: by PCI vendor and device ID, with the device name where the IDs alone
// do not tell (DeviceInfo::vendor_id, device_id, name).
const TuningProfile& select_profile(uint32_t vendor_id, uint32_t device_id, std::string_view device_name);
// The profile of an OpenGL context, which has no PCI IDs: by GL_VENDOR and GL_RENDERER.
const TuningProfile& select_gl_profile(std::string_view vendor, std::string_view renderer);

}  // namespace gpuscan::core
