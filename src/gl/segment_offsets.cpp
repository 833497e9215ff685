// Segmented reductions by offsets on OpenGL (gl.hpp, as include/gpuscan/vulkan/segmented_reduce.hpp): the
// program and checks of core/segment_offsets_plan.hpp, with the .no_subgroups builds of the
// seg_offsets_* kernels (every invocation a subgroup of its own: common/subgroup_basic.glsl) and the GL
// segmented scan's program (src/gl/segmented.cpp) for the tiles' totals, so it runs on any GL 4.5 context.
// This is gl::Plan<primitive::SegmentedReduce>'s part (gl/segment_offsets.hpp); the free calls are
// conveniences over that plan.
#include <cstring>
#include <variant>

#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/segment_offsets_plan.hpp"
#include "core/variant_names.hpp"
#include "core/windows.hpp"
#include "gpuscan/gl/plan.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/execute.hpp"
#include "gl/segment_offsets.hpp"
#include "gl/segmented_program.hpp"

namespace gpuscan::gl {
namespace {

// The layout in temp; checks the count, the config and the types GL lacks, as the Vulkan backend does.
core::OffsetsReduceLayout reduce_layout_for(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  const Context::Impl& impl = impl_of(ctx);
  const ScanConfig scan = core::offsets_scan_config(config);
  const uint32_t esize = element_size(config.type);
  const uint32_t unit = std::max<uint32_t>(esize, 4);  // the head flags are bound once, as the values
  core::check_offsets_count(count, core::window_elements(impl.max_binding_bytes, impl.binding_alignment(unit), unit),
                            config.type);
  segmented_scan_temp_requirements(ctx, count, scan);  // the config, the type (GL_ARB_gpu_shader_int64)
  // K = 1 unless asked, as on Vulkan (src/vulkan/segment_offsets.cpp says why).
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane ? config.vectors_per_lane : 1,
                       core::workgroup_limits(ctx.info()), esize);
  return core::offsets_reduce_layout(count, config.type, shape, [&](uint64_t tiles) {
    const TempRequirements req = segmented_scan_temp_requirements(ctx, tiles, scan);
    return core::ScanTemp{req.size, req.alignment};
  });
}

// The reduction's program (core::offsets_reduce_program) with GL's segmented scan of the tiles' totals.
void dispatch_plan(const Context& ctx, const core::OffsetsReduceLayout& l, const SegmentedReduceArgs& args) {
  Context::Impl& impl = impl_of(ctx);
  core::OffsetsBackend backend;
  const ScanConfig scan = core::offsets_scan_config(args.config);
  backend.segmented_scan = [&](uint64_t count) { return segmented_scan_program(ctx, count, scan, SegmentHeads::flags); };
  backend.kernel_suffix = ".no_subgroups";
  backend.limits = {impl.max_groups_x, impl.info.max_workgroup_count[1]};
  const BufferView buffers[] = {args.input, args.offsets, args.output, args.temp};  // core::OffsetsBuffer's order
  execute(impl, core::offsets_reduce_program(l, args.count, args.segments, args.config.type, args.config.op, backend),
          buffers);
}

}  // namespace

TempRequirements segmented_reduce_temp(const Context& ctx, const primitive::SegmentedReduce& r, uint64_t max_count) {
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, max_count, r.config);
  return {l.bytes, l.alignment};
}

void segmented_reduce_issue(const Context& ctx, const primitive::SegmentedReduce& r, const SegmentedReduceBuffers& b) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, b.count, r.config);
  core::check_segment_count(b.segments);
  if (b.segments == 0) return;
  core::check_offsets_reduce_buffers(
      b.input, b.offsets, b.output, b.temp, b.count, b.segments, element_size(r.config.type), l,
      [&](const char* what, const BufferView& view, uint64_t count, uint32_t unit, const char* need) {
        check_view(impl, what, view, count, unit, need);
      },
      overlaps);
  dispatch_plan(ctx, l, {r.config, b.count, b.segments, b.input, b.offsets, b.output, b.temp});
}

// The free calls: one plan each, made for this one call.

TempRequirements segmented_reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  return Plan(ctx, primitive::SegmentedReduce{config}, core::one_call(count)).temp_requirements();
}

void record_segmented_reduce(const Context& ctx, const SegmentedReduceArgs& args) {
  Plan(ctx, primitive::SegmentedReduce{args.config}, core::one_call(args.count))
      .record({args.count, args.segments, args.input, args.offsets, args.output, args.temp});
}

// A one-shot plan on host data (gpuscan/gl/plan.hpp).
std::vector<std::byte> segmented_reduce_bytes(const Context& ctx, std::span<const std::byte> values,
                                              std::span<const uint32_t> offsets, const ReduceConfig& config) {
  impl_of(ctx).check_current();
  return Plan(ctx, primitive::SegmentedReduce{config}, core::one_call(values.size() / element_size(config.type)))
      .run({.values = values, .offsets = offsets});
}

template <GlElement T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                ReduceConfig config) {
  config.type = data_type_of<T>::value;
  return gpuscan::detail::from_bytes<T>(segmented_reduce_bytes(ctx, std::as_bytes(values), offsets, config));
}

#define GPUSCAN_GL_OFFSETS_INSTANTIATE(T) \
  template std::vector<T> segmented_reduce(const Context&, std::span<const T>, std::span<const uint32_t>, ReduceConfig);
GPUSCAN_GL_OFFSETS_INSTANTIATE(uint32_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(int32_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(float)
GPUSCAN_GL_OFFSETS_INSTANTIATE(uint64_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(int64_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(double)
#undef GPUSCAN_GL_OFFSETS_INSTANTIATE

}  // namespace gpuscan::gl
