#include "core/policy.hpp"

#include <algorithm>

#include "core/tuning.hpp"
#include "gpuscan/error.hpp"

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
    else if (caps.single_pass && vector_aligned && count > tile && count <= profile.look_ahead_deterministic_f32_max &&
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
  return std::min(requested ? requested : profile.default_spin_limit, profile.max_spin_limit);
}

uint32_t tiles_per_workgroup(const TuningProfile& profile, uint32_t requested, uint64_t tiles) {
  const uint32_t chosen = requested                                 ? requested
                          : tiles > profile.several_tiles_min_tiles ? profile.default_tiles_per_workgroup
                                                                    : 1;
  return std::min(chosen, profile.max_tiles_per_workgroup);
}

uint32_t compact_large_vectors_per_lane(const TuningProfile& profile, uint64_t count) {
  return count > profile.large_tile_min_elements ? profile.compact_large_tile_vectors_per_lane : 0;
}

CompactPath choose_compact_path(CompactPath requested, bool ballots, const std::string& device) {
  if (requested == CompactPath::automatic) return ballots ? CompactPath::ballot : CompactPath::shared_memory;
  if (requested == CompactPath::ballot && !ballots)
    throw Error(Errc::unsupported, device + "; use CompactPath::shared_memory or automatic");
  return requested;
}

bool compact_counts_multipass(CompactPath path, bool subgroup_arithmetic) {
  return path == CompactPath::shared_memory || !subgroup_arithmetic;
}

}  // namespace gpuscan::core
