// What both backends decide the same way once they know the device's limits: the tile shape (W, K) for a
// tuning profile (core/profile.hpp), whether a workgroup's shared memory fits, and the plan for a chosen
// algorithm. Which algorithm runs is core::choose_scan's (core/scan_policy.hpp), from what the device offers.
#pragma once

#include <cstdint>
#include <string>

#include "core/plan.hpp"
#include "core/profile.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

struct TileShape {
  uint32_t workgroup_size;    // W
  uint32_t vectors_per_lane;  // K
};

// Throws Errc::invalid_argument unless `op` is defined on `type` (op_supports).
void check_op(Op op, DataType type);

// What a device allows a workgroup: at most `max_invocations` invocations, in subgroups of up to
// `max_subgroup_size` (0: no subgroups, as on an OpenGL driver without GL_KHR_shader_subgroup).
struct WorkgroupLimits {
  uint32_t max_invocations;
  uint32_t max_subgroup_size;
};

// The narrowest workgroup gpuscan's kernels run with: 32 invocations, or the device's widest subgroup if
// that is wider. The kernels assume that a workgroup is made of whole subgroups: the tile layout strides a
// subgroup's rows by gl_SubgroupSize (tile_layout.glsl), a subgroup's scan takes its total from lane
// gl_SubgroupSize - 1 (scan_element.glsl), and the look-back steps back gl_NumSubgroups * gl_SubgroupSize
// tiles per round (lookback.glsl). A workgroup narrower than its subgroup leaves lanes empty and breaks all
// three (tiles would overlap), so such a W is raised where it is a default and refused where it is asked for.
// Subgroup sizes and W are powers of two, so a W at least as wide is a whole number of subgroups.
uint32_t min_workgroup_size(const WorkgroupLimits& limits);
// The limits from a backend's device description: Vulkan's DeviceInfo (max_subgroup_size), OpenGL's GlInfo
// (GL_KHR_shader_subgroup's one subgroup size, 0 without it).
template <class Info>
WorkgroupLimits workgroup_limits(const Info& info) {
  if constexpr (requires { info.max_subgroup_size; })
    return {info.max_workgroup_invocations, info.max_subgroup_size};
  else
    return {info.max_workgroup_invocations, info.subgroup_size};
}

// The requested W, or where it is 0 the default: default_workgroup_size (at most limits.max_invocations),
// or min_workgroup_size if wider.
uint32_t workgroup_size_or_default(uint32_t requested, const WorkgroupLimits& limits);

// W and K from a config (0 = the defaults, W at least min_workgroup_size; K's default depends on the
// element size). Throws Errc::invalid_argument unless W is a power of two from min_workgroup_size to
// limits.max_invocations and K a power of two from 1 to 16.
TileShape tile_shape(uint32_t workgroup_size, uint32_t vectors_per_lane, const WorkgroupLimits& limits,
                     uint32_t element_bytes = 4);
void check_shared_memory(TileShape shape, DataType type, uint64_t max_shared_bytes);
void check_shared_memory(TileShape shape, uint32_t element_bytes, uint64_t max_shared_bytes);

// The single-pass scan's W and K for `count` elements: the requested ones where non-zero, else the
// profile's defaults (its large and small tiles where it has them, core/tuning.hpp "Single-pass tile
// shapes" for the H200's; the plain defaults otherwise).
TileShape single_pass_shape(uint32_t workgroup_size, uint32_t vectors_per_lane, DataType type, ScanKind kind,
                            uint64_t count, const TuningProfile& profile);
// Reduce-then-scan's W and K likewise ("Reduce-then-scan tile shapes" in core/tuning.hpp).
TileShape reduce_then_scan_shape(uint32_t workgroup_size, uint32_t vectors_per_lane, DataType type, uint64_t count,
                                 const TuningProfile& profile);
// The shape a scan of `count` elements runs `algorithm` with: one of the two above, or for multipass
// the requested W (and K) or the plain defaults. A default W is kept within `workgroup`: at most its
// max_invocations, at least min_workgroup_size; a requested W is left to tile_shape to check.
TileShape scan_tile_shape(Algorithm algorithm, uint32_t workgroup_size, uint32_t vectors_per_lane, DataType type,
                          ScanKind kind, uint64_t count, const TuningProfile& profile,
                          const WorkgroupLimits& workgroup = {1024, 0});
// The most elements `automatic` gives the single-pass scan before reduce-then-scan: the profile's limit
// for the type and kind (`ordered`: a deterministic float scan, whose look-back combines in a fixed order
// and costs more).
uint64_t single_pass_auto_limit(DataType type, ScanKind kind, const TuningProfile& profile, bool ordered = false);
// Temp elements of `algorithm`'s plan for `count` elements that also serve every smaller count, whose
// default shape may have smaller tiles and so more tiles' state: the largest of each shape's plan at
// the largest count (up to `count`) that takes it. The arguments as plan_scan's and scan_tile_shape's
// (config.type and kind, the requested W and K). Its cost does not grow with the count's windows: it
// sizes their outlines (PlanExtent::outline).
uint64_t scan_temp_elements(Algorithm algorithm, uint64_t count, const ScanConfig& config, const TuningProfile& profile,
                            const PlanLimits& limits, bool temp_zeroed = false, uint64_t window = 0,
                            const WorkgroupLimits& workgroup = {1024, 0});

// Throws Errc::too_large when `count` elements of `element_bytes` bytes could never be held by the device:
// more bytes than 64-bit offsets express, or more than `largest_heap`, the device's largest memory heap
// (0: not known, as on OpenGL). `what` names the operation in the message ("scan", "reduction", ...).
// Backends call it before they plan, so that a count no device holds fails at once, whatever it is.
//   check_count_fits(uint64_t{1} << 50, 4, 24ull << 30, "scan")
//   // throws "a scan of 1125899906842624 elements of 4 bytes needs 4503599627370496 bytes, more than the
//   // device's largest memory heap of 25769803776 bytes"
void check_count_fits(uint64_t count, uint32_t element_bytes, uint64_t largest_heap, const std::string& what);

// Throws Errc::invalid_argument when op.element_size is set and is not `compiled`, the std430 array
// stride of the snippet's T that a backend read from the compiled shader.
void check_custom_element_size(const CustomOp& op, uint32_t compiled);

// Bytes per element of a scan: the custom operator's element_size where there is one (filled in by the
// backend once the snippet is compiled), element_size(config.type) otherwise.
uint32_t element_bytes(const ScanConfig& config);

// The plan of `algorithm` (not automatic) for `count` elements: multipass tiles of 2·W elements, the
// tile kernels' W·K·4. More than `window` elements (window_elements: what one binding holds) run as
// consecutive windows (core/windows.hpp); window 0 means no windows, and then counts past the shaders'
// 32-bit indices throw Errc::too_large. `extent`: the whole plan or its outline (PlanExtent).
Plan plan_scan(Algorithm algorithm, uint64_t count, const ScanConfig& config, TileShape shape,
               const PlanLimits& limits, bool temp_zeroed = false, uint64_t window = 0,
               PlanExtent extent = PlanExtent::full);

// The device-wide reduction's plan (core::plan_reduce) over tiles of W·K·4 elements, windowed the same way.
Plan plan_reduction(uint64_t count, DataType type, TileShape shape, const PlanLimits& limits, uint64_t window = 0,
                    PlanExtent extent = PlanExtent::full);

// Throws Errc::invalid_argument when a select_flagged / partition_flagged call has fewer flags than values.
void check_flag_count(uint64_t flags, uint64_t values);

// The compaction plan: tiles of W·K·4 elements; the counts scanned by multipass (Blelloch, tiles of
// 2·W) or by reduce-then-scan, or with `single_pass` the one-dispatch plan (CompactRequest). More than
// `window` elements (window_elements: what one binding holds; 0 = no windows) run the three-pass plan
// in windows of whole tiles (CompactRequest::window); Errc::too_large when a binding holds no tile.
Plan plan_compaction(uint64_t count, TileShape shape, bool counts_multipass, bool partition,
                     const PlanLimits& limits, bool single_pass = false, bool temp_zeroed = false,
                     uint64_t window = 0, PlanExtent extent = PlanExtent::full);
// Whether such a plan runs in windows.
bool compaction_windowed(uint64_t count, TileShape shape, uint64_t window);
// The run_start predicate reads the element before each one, which for a window's first element the
// binding does not hold: Errc::too_large unless `count` fits one window of `window` elements.
void check_run_start_fits(uint64_t count, uint64_t window);
// Shared memory the single-pass compaction kernel needs at most (compact_stage.glsl stages a whole tile
// of W·K·4 elements of `element_bytes` each: W·K·16 bytes for the 4-byte types, W·K·32 for the 8-byte
// ones; the look-back and the subgroup counts take a few words per subgroup, and compact.glsl's scan
// array W words).
uint64_t compact_single_pass_shared_bytes(TileShape shape, uint32_t element_bytes = 4);

}  // namespace gpuscan::core
