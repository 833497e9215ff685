// Segmented reductions by offsets on OpenGL (gl.hpp, as include/gpuscan/vulkan/segmented_reduce.hpp): the
// plan and checks of core/segment_offsets_plan.hpp, dispatched with the .no_subgroups builds of the
// seg_offsets_* kernels (every invocation a subgroup of its own: common/subgroup_basic.glsl) and the GL
// segmented scan (src/gl/segmented.cpp) for the tiles' totals, so it runs on any GL 4.5 context.
#include <cstring>
#include <variant>

#include "core/scan_shape.hpp"
#include "core/segment_offsets_plan.hpp"
#include "core/variant_names.hpp"
#include "core/windows.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"

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

struct OffsetsPass {
  PipelineKey key;
  Binding bindings[6];
  size_t binding_count = 0;
  uint32_t params[core::offsets_param_words] = {};
  uint32_t groups_x = 0, groups_y = 0;
};

BufferView sub_view(const BufferView& view, uint64_t bytes) { return {view.buffer, view.offset + bytes}; }

// Binds every range and builds every program before the first dispatch (as record.cpp's execute), then
// dispatches the steps; the segmented scan of the tiles' totals is record_segmented_scan's.
void dispatch_plan(const Context& ctx, const core::OffsetsReduceLayout& l, const SegmentedReduceArgs& args) {
  Context::Impl& impl = impl_of(ctx);
  const core::PlanLimits limits{impl.max_groups_x, impl.info.max_workgroup_count[1]};
  const std::vector<core::OffsetsStep> steps =
      core::plan_offsets_reduce(l, args.count, args.segments, args.config.type, limits);
  std::vector<OffsetsPass> passes;
  for (const core::OffsetsStep& step : steps) {
    const auto* d = std::get_if<core::OffsetsDispatch>(&step);
    if (!d) continue;
    OffsetsPass p;
    p.binding_count = d->bindings.size();
    uint32_t element_offsets[6];
    for (size_t b = 0; b < p.binding_count; ++b) {
      const core::OffsetsRange& r = d->bindings[b];
      p.bindings[b] = bind_elements(impl, core::offsets_view(args, r.slot), r.first, r.count, r.unit);
      element_offsets[b] = p.bindings[b].element_offset;
    }
    core::fill_offsets_words(*d, std::span<const uint32_t>(element_offsets, p.binding_count), p.params);
    p.key.variant = core::offsets_variant_name(*d, args.config.type) + ".no_subgroups";
    if (d->typed) p.key.op = core::op_constant(args.config.op);
    p.key.workgroup_size = d->workgroup_size;
    if (d->vectors_per_lane) {  // the tiles: 16-byte vectors of values where they start on a vector boundary
      p.key.vectors_per_lane = d->vectors_per_lane;
      p.key.vector_aligned = p.bindings[0].element_offset % 4 == 0;
    }
    p.groups_x = d->groups_x;
    p.groups_y = d->groups_y;
    impl.program(p.key);
    passes.push_back(p);
  }
  size_t next = 0;
  for (const core::OffsetsStep& step : steps) {
    if (std::holds_alternative<core::Barrier>(step)) {
      impl.gl.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    } else if (const auto* scan = std::get_if<core::OffsetsScan>(&step)) {
      record_segmented_scan(ctx, {core::offsets_scan_config(args.config), SegmentHeads::flags, scan->count,
                                  sub_view(args.temp, scan->values), sub_view(args.temp, scan->heads),
                                  sub_view(args.temp, scan->output), sub_view(args.temp, scan->temp)});
    } else {
      const OffsetsPass& p = passes[next++];
      impl.dispatch(p.key, std::span<const Binding>(p.bindings, p.binding_count),
                    std::span<const uint32_t>(p.params, core::offsets_param_words), p.groups_x, p.groups_y);
    }
  }
}

}  // namespace

TempRequirements segmented_reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, count, config);
  return {l.bytes, l.alignment};
}

void record_segmented_reduce(const Context& ctx, const SegmentedReduceArgs& args) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, args.count, args.config);
  core::check_segment_count(args.segments);
  if (args.segments == 0) return;
  core::check_offsets_reduce_buffers(
      args.input, args.offsets, args.output, args.temp, args.count, args.segments, element_size(args.config.type), l,
      [&](const char* what, const BufferView& view, uint64_t count, uint32_t unit, const char* need) {
        check_view(impl, what, view, count, unit, need);
      },
      overlaps);
  dispatch_plan(ctx, l, args);
}

std::vector<std::byte> segmented_reduce_bytes(const Context& ctx, std::span<const std::byte> values,
                                              std::span<const uint32_t> offsets, const ReduceConfig& config) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const core::OffsetsInput input = core::check_offsets_input(values.size(), offsets, config.type);
  std::vector<std::byte> result(input.result_bytes);
  const TempRequirements req = segmented_reduce_temp_requirements(ctx, input.count, config);  // checks the config
  if (input.segments == 0) return result;
  OwnedBuffer in(impl.gl, values.size(), values.data());
  OwnedBuffer offs(impl.gl, offsets.size() * 4, offsets.data());
  OwnedBuffer out(impl.gl, result.size());
  OwnedBuffer temp(impl.gl, req.size);
  record_segmented_reduce(ctx, {config, input.count, input.segments, in.view(), offs.view(), out.view(), temp.view()});
  read_back(impl, out, result.data(), result.size(), "segmented reduction");
  return result;
}

template <GlElement T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                Op op) {
  const std::vector<std::byte> bytes =
      segmented_reduce_bytes(ctx, std::as_bytes(values), offsets, {data_type_of<T>::value, op});
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

#define GPUSCAN_GL_OFFSETS_INSTANTIATE(T) \
  template std::vector<T> segmented_reduce(const Context&, std::span<const T>, std::span<const uint32_t>, Op);
GPUSCAN_GL_OFFSETS_INSTANTIATE(uint32_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(int32_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(float)
GPUSCAN_GL_OFFSETS_INSTANTIATE(uint64_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(int64_t)
GPUSCAN_GL_OFFSETS_INSTANTIATE(double)
#undef GPUSCAN_GL_OFFSETS_INSTANTIATE

}  // namespace gpuscan::gl
