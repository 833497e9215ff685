#include "core/scan_policy.hpp"

#include <algorithm>

#include "core/tuning.hpp"

namespace gpuscan::core {

ScanChoice choose_scan(const DeviceCaps& caps, const TuningProfile& profile, const ScanConfig& config, uint64_t count,
                       bool vector_aligned) {
  const uint64_t limit =
      single_pass_auto_limit(config.type, config.kind, profile, is_float(config.type) && config.deterministic);
  if (config.custom_op)
    return {Algorithm::multipass,
            tile_shape(config.workgroup_size, config.vectors_per_lane, caps.workgroup, element_bytes(config)), limit};
  Algorithm algorithm = config.algorithm;
  if (algorithm == Algorithm::automatic) {
    // Measured on the H200 (bench/RESULTS.md): one reduce-then-scan dispatch wins while one tile holds
    // the input, the single-pass scan up to the limit, reduce-then-scan beyond.
    const uint32_t w = workgroup_size_or_default(config.workgroup_size, caps.workgroup);
    const uint32_t k = config.vectors_per_lane ? config.vectors_per_lane : default_vectors_per_lane_for(element_bytes(config));
    const uint64_t tile = uint64_t{w} * k * 4;
    if (caps.single_pass && vector_aligned && count > tile && count <= limit)
      algorithm = Algorithm::single_pass;
    else if (caps.single_pass && vector_aligned && count > tile && count <= profile.scan.look_ahead_deterministic_f32_max &&
             config.type == DataType::f32 && config.deterministic && config.kind == ScanKind::exclusive)
      algorithm = Algorithm::look_ahead;  // past the ordered look-back's limit (TuningProfile)
    else
      algorithm = caps.subgroup_arithmetic ? Algorithm::reduce_then_scan : Algorithm::multipass;
  }
  const TileShape shape = scan_tile_shape(algorithm, config.workgroup_size, config.vectors_per_lane, config.type,
                                          config.kind, count, profile, caps.workgroup);
  return {algorithm, shape, limit};
}

uint32_t spin_limit(const TuningProfile& profile, uint32_t requested) {
  return std::min(requested ? requested : profile.look_back.default_spin_limit, profile.look_back.max_spin_limit);
}

uint32_t tiles_per_workgroup(const TuningProfile& profile, uint32_t requested, uint64_t tiles) {
  const LookBackTuning& t = profile.look_back;
  const uint32_t chosen = requested ? requested : tiles > t.several_tiles_min_tiles ? t.default_tiles_per_workgroup : 1;
  return std::min(chosen, t.max_tiles_per_workgroup);
}

}  // namespace gpuscan::core
