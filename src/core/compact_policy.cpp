#include "core/compact_policy.hpp"

#include "gpuscan/error.hpp"

namespace gpuscan::core {

CompactChoice choose_compaction(const CompactCaps& caps, const TuningProfile& profile, const CompactConfig& config,
                                uint64_t count, bool partition, bool indirect) {
  const uint32_t esize = element_size(config.type);
  TileShape shape = tile_shape(config.workgroup_size, config.vectors_per_lane, caps.workgroup);
  const CompactPath path = choose_compact_path(config.path, caps.ballots, caps.no_ballots);
  // The single-pass kernel stages a whole tile in shared memory (compact_stage.glsl).
  const auto stage_fits_in_shared_memory = [&](const TileShape& s) {
    return compact_single_pass_shared_bytes(s, esize) <= caps.max_shared_memory_bytes;
  };
  // An 8-byte element doubles the stage (W = 256, K = 4: 32 KiB, more than lavapipe's 32 KiB with the
  // rest): a selection that may run single-pass halves the default K until its stage fits, rather than
  // fall back to three passes (automatic) or be refused (single_pass).
  if (esize == 8 && config.vectors_per_lane == 0 && !partition && config.algorithm != CompactAlgorithm::three_pass &&
      path == CompactPath::ballot && caps.single_pass && !compaction_windowed(count, shape, caps.window))
    while (shape.vectors_per_lane > 1 && !stage_fits_in_shared_memory(shape)) shape.vectors_per_lane /= 2;
  CompactChoice c{path, config.algorithm, shape, compact_counts_multipass(path, caps.subgroup_arithmetic)};
  // Past one binding the three-pass plan runs in windows; the single-pass one cannot.
  const bool windowed = compaction_windowed(count, shape, caps.window);
  const bool stage_fits = stage_fits_in_shared_memory(shape);
  const bool single_pass_possible = caps.single_pass && path == CompactPath::ballot && !windowed && stage_fits;
  if (c.algorithm == CompactAlgorithm::automatic)
    c.algorithm = single_pass_possible && !partition ? CompactAlgorithm::single_pass : CompactAlgorithm::three_pass;
  // Large single-pass selections take larger tiles where the profile has them and the stage fits
  // (compact.hpp, CompactConfig::vectors_per_lane).
  const uint32_t large_k = compact_large_vectors_per_lane(profile, count);
  if (c.algorithm == CompactAlgorithm::single_pass && config.vectors_per_lane == 0 && !partition && large_k != 0) {
    const TileShape large = tile_shape(config.workgroup_size, large_k, caps.workgroup);
    if (stage_fits_in_shared_memory(large) && !compaction_windowed(count, large, caps.window)) c.shape = large;
  }
  if (windowed && indirect)
    throw Error(Errc::too_large, "a compaction with its count in GPU memory must fit one binding: its upper bound of " +
                                     std::to_string(count) + " elements spans several windows");
  if (c.algorithm != CompactAlgorithm::single_pass) return c;
  if (partition)
    throw Error(Errc::unsupported, "partitions run three-pass only: a stable partition must know the total kept "
                                   "before it places a rejected element; use CompactAlgorithm::three_pass or automatic");
  if (!caps.single_pass) throw Error(Errc::unsupported, caps.no_single_pass);
  if (path != CompactPath::ballot)
    throw Error(Errc::unsupported, "the single-pass compaction runs on the ballot path only; use "
                                   "CompactAlgorithm::three_pass for the shared-memory path");
  if (!stage_fits)
    throw Error(Errc::invalid_argument,
                "the single-pass compaction stages a tile of W·K·4 elements in shared memory: W = " +
                    std::to_string(shape.workgroup_size) + ", K = " + std::to_string(shape.vectors_per_lane) + " of " +
                    std::string(to_string(config.type)) + " need " +
                    std::to_string(compact_single_pass_shared_bytes(shape, esize)) + " bytes, the device has " +
                    std::to_string(caps.max_shared_memory_bytes) +
                    "; use a smaller W or K, or CompactAlgorithm::three_pass or automatic");
  return c;
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

uint32_t compact_large_vectors_per_lane(const TuningProfile& profile, uint64_t count) {
  return count > profile.compact.large_tile_min_elements ? profile.compact.large_tile_vectors_per_lane : 0;
}

}  // namespace gpuscan::core
