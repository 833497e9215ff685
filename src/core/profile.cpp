#include "core/profile.hpp"

namespace gpuscan::core {

namespace {

// The numbers and their measurements: core/tuning.hpp.
// Hopper: the H200 and the H100 share the SM (132 of them on the SXM parts), so the same numbers.
constexpr TuningProfile hopper(std::string_view name, std::string_view source,
                               uint64_t look_ahead_deterministic_f32_max = 0,
                               uint64_t inclusive_four_byte_integer = h200_auto_limit_inclusive_four_byte_integer,
                               uint64_t other = h200_auto_limit_other) {
  return {
      .name = name,
      .source = source,
      .scan = {.large_tiles = true,
               .large_tile_vectors_per_lane = large_tile_vectors_per_lane,
               .inclusive_large_tile_workgroup_size = inclusive_large_tile_workgroup_size,
               .small_tiles = true,
               .small_tile_vectors_per_lane = small_tile_vectors_per_lane,
               .large_eight_byte_rts_workgroup_size = large_eight_byte_rts_workgroup_size,
               .auto_limits = {.exclusive_four_byte = h200_auto_limit_exclusive_four_byte,
                               .inclusive_four_byte_integer = inclusive_four_byte_integer,
                               .other = other,
                               .ordered_eight_byte = h200_auto_limit_ordered_eight_byte},
               .look_ahead_deterministic_f32_max = look_ahead_deterministic_f32_max},
      .look_back = {.default_tiles_per_workgroup = default_tiles_per_workgroup},
      .compact = {.large_tile_vectors_per_lane = compact_large_tile_vectors_per_lane},
  };
}

constexpr TuningProfile h200 = hopper("nvidia-h200", "measured on an NVIDIA H200, driver 580.159.04 (bench/RESULTS.md)");
// The H200's numbers, checked on an H100 80GB HBM3 (driver 580.159.04): with them 2^28 u32 exclusive
// single-pass 1.221 -> 0.880 ms. Two rules of its own: deterministic exclusive f32 scans past the ordered
// limit take the look-ahead, and the unordered single-pass scan has no automatic limit (core/tuning.hpp:
// it was the faster one at every size measured there).
constexpr TuningProfile h100 =
    hopper("nvidia-h100",
           "the H200's numbers, the look-ahead scan for deterministic f32 and single-pass at every size; measured "
           "on an NVIDIA H100 80GB HBM3, driver 580.159.04 (bench/RESULTS.md)",
           h100_look_ahead_deterministic_f32_max, h100_auto_limit_inclusive_four_byte_integer, h100_auto_limit_other);

constexpr TuningProfile lavapipe{
    .name = "lavapipe",
    .source = "lavapipe: a CPU; plain defaults, spin limit, tiles per workgroup and histogram samples per invocation "
              "capped for its loop-iteration limit",
    .look_back = {.max_spin_limit = lavapipe_max_spin_limit, .max_tiles_per_workgroup = lavapipe_max_tiles_per_workgroup},
    // The large compaction tiles applied here as before: their stage exceeds lavapipe's 32 KiB at W = 256,
    // so they apply only where a config asks for a narrower W.
    .compact = {.large_tile_vectors_per_lane = compact_large_tile_vectors_per_lane},
    .histogram = {.max_samples_per_invocation = lavapipe_histogram_max_samples_per_invocation},
};

constexpr TuningProfile conservative{.name = "conservative",
                                     .source = "no measurements for this device: plain defaults"};

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// An H200 by its name. Other H200 variants than the one measured (NVL and the like) are taken by name, as
// their PCI IDs are not checked here; a GH200 is a different part (its own memory and clocks) and stays
// conservative until measured.
bool h200_name(std::string_view name) { return contains(name, "H200") && !contains(name, "GH200"); }
// An H100 (SXM, PCIe or NVL) by its name; only the SXM5 80GB HBM3 was measured.
bool h100_name(std::string_view name) { return contains(name, "H100"); }

}  // namespace

const TuningProfile& h200_profile() { return h200; }
const TuningProfile& h100_profile() { return h100; }
const TuningProfile& lavapipe_profile() { return lavapipe; }
const TuningProfile& conservative_profile() { return conservative; }

const TuningProfile& select_profile(uint32_t vendor_id, uint32_t device_id, std::string_view device_name) {
  // 0x2335: the H200 SXM 141GB, the device measured.
  if (vendor_id == vendor_nvidia && (device_id == 0x2335 || h200_name(device_name))) return h200;
  // 0x2330: the H100 SXM5 80GB HBM3, the device measured.
  if (vendor_id == vendor_nvidia && (device_id == 0x2330 || h100_name(device_name))) return h100;
  // Mesa's vendor ID is shared by its software devices: the name tells lavapipe from the others.
  if (vendor_id == vendor_mesa && device_name.starts_with("llvmpipe")) return lavapipe;
  return conservative;
}

const TuningProfile& select_gl_profile(std::string_view vendor, std::string_view renderer) {
  if (renderer.starts_with("llvmpipe")) return lavapipe;
  if (contains(vendor, "NVIDIA") && h200_name(renderer)) return h200;
  if (contains(vendor, "NVIDIA") && h100_name(renderer)) return h100;
  return conservative;
}

}  // namespace gpuscan::core
