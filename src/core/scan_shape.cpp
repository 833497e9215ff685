#include "core/scan_shape.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "core/tuning.hpp"
#include "core/windows.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {

void check_op(Op op, DataType type) {
  if (!op_supports(op, type))
    throw Error(Errc::invalid_argument, "the " + std::string(to_string(op)) +
                                            " operator is defined on integer types only, not on " +
                                            std::string(to_string(type)));
}

uint32_t min_workgroup_size(const WorkgroupLimits& limits) { return std::max(32u, limits.max_subgroup_size); }

uint32_t workgroup_size_or_default(uint32_t requested, const WorkgroupLimits& limits) {
  if (requested) return requested;
  // Vulkan promises 128 invocations, not the default 256: a smaller device gets its widest workgroup.
  const uint32_t fitting = limits.max_invocations ? std::min(default_workgroup_size, limits.max_invocations)
                                                  : default_workgroup_size;
  return std::max(fitting, min_workgroup_size(limits));
}

TileShape tile_shape(uint32_t w, uint32_t k, const WorkgroupLimits& limits, uint32_t element_bytes) {
  const uint32_t narrowest = min_workgroup_size(limits);
  w = workgroup_size_or_default(w, limits);
  if (k == 0) k = default_vectors_per_lane_for(element_bytes);
  const std::string range = " from " + std::to_string(narrowest) + " to " + std::to_string(limits.max_invocations);
  if (!std::has_single_bit(w) || w > limits.max_invocations || w < 32)
    throw Error(Errc::invalid_argument, "workgroup size " + std::to_string(w) + " is not a power of two" + range +
                                            " (the device's maximum)");
  if (w < narrowest)
    throw Error(Errc::invalid_argument,
                "workgroup size " + std::to_string(w) + " is narrower than the device's subgroups of up to " +
                    std::to_string(limits.max_subgroup_size) +
                    " invocations; gpuscan's kernels need whole subgroups, so it must be a power of two" + range);
  if (k < 1 || k > 16 || !std::has_single_bit(k))
    throw Error(Errc::invalid_argument, "vectors per lane " + std::to_string(k) + " is not a power of two from 1 to 16");
  return {w, k};
}

namespace {
bool four_byte_integer(DataType type) { return type == DataType::u32 || type == DataType::i32; }
}  // namespace

TileShape single_pass_shape(uint32_t w, uint32_t k, DataType type, ScanKind kind, uint64_t count,
                            const TuningProfile& profile) {
  const ScanTuning& p = profile.scan;
  const uint32_t bytes = element_size(type);
  const bool exclusive = kind == ScanKind::exclusive;
  const bool large = p.large_tiles && count > p.large_tile_min_elements;
  // W = 128 comes with K = 8: a caller who sets K keeps the default W.
  if (w == 0)
    w = large && !exclusive && four_byte_integer(type) && k == 0 ? p.inclusive_large_tile_workgroup_size
                                                                 : default_workgroup_size;
  if (k == 0) {
    if (large && bytes == 4 && (exclusive || (four_byte_integer(type) && w <= p.inclusive_large_tile_workgroup_size)))
      k = p.large_tile_vectors_per_lane;
    else if (p.small_tiles && exclusive && four_byte_integer(type) && count <= p.small_tile_max_elements)
      k = p.small_tile_vectors_per_lane;
    else
      k = default_vectors_per_lane_for(bytes);
  }
  return {w, k};
}

TileShape reduce_then_scan_shape(uint32_t w, uint32_t k, DataType type, uint64_t count, const TuningProfile& profile) {
  const ScanTuning& p = profile.scan;
  if (w == 0)
    w = p.large_eight_byte_rts_workgroup_size != 0 && element_size(type) == 8 && count > p.large_tile_min_elements
            ? p.large_eight_byte_rts_workgroup_size
            : default_workgroup_size;
  if (k == 0) k = default_vectors_per_lane_for(element_size(type));
  return {w, k};
}

TileShape scan_tile_shape(Algorithm algorithm, uint32_t w, uint32_t k, DataType type, ScanKind kind, uint64_t count,
                          const TuningProfile& profile, const WorkgroupLimits& workgroup) {
  TileShape shape{w ? w : default_workgroup_size, k ? k : default_vectors_per_lane_for(element_size(type))};
  if (algorithm == Algorithm::single_pass || algorithm == Algorithm::look_ahead) shape = single_pass_shape(w, k, type, kind, count, profile);
  if (algorithm == Algorithm::reduce_then_scan) shape = reduce_then_scan_shape(w, k, type, count, profile);
  // The tuned shapes were measured on 32-wide subgroups; on wider ones a narrower default W keeps its K.
  // Vulkan promises 128 invocations, not the default 256: a smaller device gets its widest workgroup.
  if (w == 0)
    shape.workgroup_size =
        std::max(std::min(shape.workgroup_size, workgroup.max_invocations), min_workgroup_size(workgroup));
  return shape;
}

uint64_t single_pass_auto_limit(DataType type, ScanKind kind, const TuningProfile& p, bool ordered) {
  const ScanTuning::AutoLimits& limits = p.scan.auto_limits;
  if (ordered) return element_size(type) == 8 ? limits.ordered_eight_byte : limits.ordered;
  if (element_size(type) == 4 && kind == ScanKind::exclusive) return limits.exclusive_four_byte;
  if (four_byte_integer(type)) return limits.inclusive_four_byte_integer;
  return limits.other;
}

uint64_t scan_temp_elements(Algorithm algorithm, uint64_t count, const ScanConfig& config,
                            const TuningProfile& profile, const PlanLimits& limits, bool temp_zeroed, uint64_t window,
                            const WorkgroupLimits& workgroup) {
  uint64_t temp = 0;
  for (const uint64_t n : {profile.scan.small_tile_max_elements, profile.scan.large_tile_min_elements, count}) {
    const uint64_t largest = std::min(n, count);  // of the counts up to `count` that take n's shape
    const TileShape shape = scan_tile_shape(algorithm, config.workgroup_size, config.vectors_per_lane, config.type,
                                            config.kind, largest, profile, workgroup);
    temp = std::max(temp, plan_scan(algorithm, largest, config, shape, limits, temp_zeroed, window,
                                    PlanExtent::outline).temp_elements);
  }
  return temp;
}

void check_shared_memory(TileShape shape, DataType type, uint64_t max_shared_bytes) {
  check_shared_memory(shape, element_size(type), max_shared_bytes);
}

void check_shared_memory(TileShape shape, uint32_t element_bytes, uint64_t max_shared_bytes) {
  const uint32_t w = shape.workgroup_size;
  const uint64_t shared_bytes = uint64_t{2} * w * element_bytes + (w / 4 + 2) * 4;
  if (shared_bytes > max_shared_bytes)
    throw Error(Errc::invalid_argument, "workgroup size " + std::to_string(w) + " needs " +
                                            std::to_string(shared_bytes) + " bytes of shared memory; the device has " +
                                            std::to_string(max_shared_bytes));
}

void check_count_fits(uint64_t count, uint32_t element_bytes, uint64_t largest_heap, const std::string& what) {
  const std::string elements = "a " + what + " of " + std::to_string(count) + " elements of " +
                               std::to_string(element_bytes) + " bytes";
  if (element_bytes != 0 && count > UINT64_MAX / element_bytes)
    throw Error(Errc::too_large, elements + " needs more than 2^64 - 1 bytes, more than 64-bit byte offsets express");
  const uint64_t bytes = count * element_bytes;
  if (largest_heap != 0 && bytes > largest_heap)
    throw Error(Errc::too_large, elements + " needs " + std::to_string(bytes) +
                                     " bytes, more than the device's largest memory heap of " +
                                     std::to_string(largest_heap) + " bytes");
}

void check_custom_element_size(const CustomOp& op, uint32_t compiled) {
  if (op.element_size != 0 && op.element_size != compiled)
    throw Error(Errc::invalid_argument,
                "CustomOp::element_size is " + std::to_string(op.element_size) + " bytes, but the snippet's T takes " +
                    std::to_string(compiled) +
                    " bytes in a std430 array (its layout on the GPU; a vec3 takes 16, for instance)");
}

uint32_t element_bytes(const ScanConfig& config) {
  return config.custom_op ? config.custom_op->element_size : element_size(config.type);
}

namespace {

// Throws Errc::too_large unless `count` elements in blocks of `block` stay within the 32-bit indices of
// the shaders ("scans of 5000000000 elements are not supported yet: at most ... elements per scan").
void check_count(uint64_t count, uint64_t block, const std::string& what) {
  // Shaders index with 32-bit integers; multi-gigabyte inputs come with 64-bit addressing
  // (Addressing::device_address).
  if (count > uint64_t{UINT32_MAX} - block)
    throw Error(Errc::too_large, what + "s of " + std::to_string(count) + " elements are not supported yet: at most " +
                                     std::to_string(uint64_t{UINT32_MAX} - block) + " elements per " + what);
}

// The request for `count` elements in blocks of `block` (checked by check_count).
ScanRequest scan_request(uint64_t count, uint64_t block, uint32_t element_bytes, const PlanLimits& limits,
                         const std::string& what) {
  check_count(count, block, what);
  ScanRequest req;
  req.n = count;
  req.block_size = static_cast<uint32_t>(block);
  req.element_size = element_bytes;
  req.limits = limits;
  return req;
}

uint64_t tile_elements(TileShape shape) { return uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4; }

}  // namespace

Plan plan_scan(Algorithm algorithm, uint64_t count, const ScanConfig& config, TileShape shape,
               const PlanLimits& limits, bool temp_zeroed, uint64_t window, PlanExtent extent) {
  const uint64_t block =
      algorithm == Algorithm::multipass ? uint64_t{2} * shape.workgroup_size : tile_elements(shape);
  auto plan_one = [&](uint64_t n, bool zeroed) {
    ScanRequest req = scan_request(n, block, element_bytes(config), limits, "scan");
    req.inclusive = config.kind == ScanKind::inclusive;
    req.temp_zeroed = zeroed;
    switch (algorithm) {
      case Algorithm::single_pass: return plan_single_pass(req);
      case Algorithm::look_ahead: return plan_look_ahead(req);
      case Algorithm::reduce_then_scan: return plan_reduce_then_scan(req);
      default: return plan_multipass_scan(req);
    }
  };
  if (window == 0 || count <= window) return plan_one(count, temp_zeroed);
  // Later windows find the single-pass state zeroed by the window before them.
  return plan_windowed_scan(count, window, config.kind == ScanKind::inclusive,
                            [&](uint64_t n, bool first) { return plan_one(n, temp_zeroed || !first); }, extent);
}

Plan plan_reduction(uint64_t count, DataType type, TileShape shape, const PlanLimits& limits, uint64_t window,
                    PlanExtent extent) {
  auto plan_one = [&](uint64_t n) {
    return plan_reduce(scan_request(n, tile_elements(shape), element_size(type), limits, "reduction"));
  };
  if (window == 0 || count <= window) return plan_one(count);
  return plan_windowed_reduce(count, window, plan_one, extent);
}

void check_flag_count(uint64_t flags, uint64_t values) {
  if (flags < values)
    throw Error(Errc::invalid_argument, "flags hold " + std::to_string(flags) + " elements, fewer than the " +
                                            std::to_string(values) + " values");
}

namespace {

// A compaction window: whole tiles, as many as one binding holds.
uint64_t compaction_window(TileShape shape, uint64_t window) {
  const uint64_t tile = tile_elements(shape);
  if (window != 0 && window < tile)
    throw Error(Errc::too_large, "a storage-buffer binding holds " + std::to_string(window) +
                                     " elements, less than one compaction tile of " + std::to_string(tile));
  return window - window % tile;
}

}  // namespace

void check_run_start_fits(uint64_t count, uint64_t window) {
  if (window != 0 && count > window)
    throw Error(Errc::too_large, "the run_start predicate (unique) compares each element with the one before, so its " +
                                     std::to_string(count) + " elements must fit one storage-buffer binding of " +
                                     std::to_string(window) + "; split the input where a run ends");
}

bool compaction_windowed(uint64_t count, TileShape shape, uint64_t window) {
  return window != 0 && count > compaction_window(shape, window);
}

uint64_t compact_single_pass_shared_bytes(TileShape shape, uint32_t element_bytes) {
  const uint64_t subgroups = shape.workgroup_size / 4 + 1;  // subgroups have at least 4 invocations
  // The stage, five words per subgroup (look-back, subgroup totals, ballot counts), and -- in case the
  // compiler keeps them although this kernel does not use them -- compact.glsl's W-word scan array and a
  // few scalars.
  return tile_elements(shape) * element_bytes + subgroups * 5 * 4 + uint64_t{shape.workgroup_size} * 4 + 64;
}

Plan plan_compaction(uint64_t count, TileShape shape, bool counts_multipass, bool partition, const PlanLimits& limits,
                     bool single_pass, bool temp_zeroed, uint64_t window, PlanExtent extent) {
  const uint64_t tile = tile_elements(shape);
  check_count(count, tile, "compaction");
  CompactRequest req;
  req.n = count;
  req.tile_size = static_cast<uint32_t>(tile);
  req.counts_multipass = counts_multipass;
  req.counts_block_size = counts_multipass ? 2 * shape.workgroup_size : static_cast<uint32_t>(tile);
  req.partition = partition;
  req.single_pass = single_pass;
  req.temp_zeroed = temp_zeroed;
  req.window = compaction_window(shape, window);
  req.extent = extent;
  req.limits = limits;
  return plan_compact(req);
}

}  // namespace gpuscan::core
