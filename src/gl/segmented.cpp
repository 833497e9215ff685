// Segmented scans on OpenGL (gl.hpp, as include/gpuscan/segmented.hpp): the plan of src/core
// (core/segmented_plan.hpp) issued with the .no_subgroups builds of seg_reduce_tiles and seg_scan_tiles
// (every invocation a subgroup of its own: common/subgroup_basic.glsl), so it runs on any GL 4.5 driver.
// The program is the one Vulkan records (core::lower_segmented_plan), issued by GL's executor.
#include <cstring>
#include <variant>

#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/segmented_checks.hpp"
#include "core/plan_program.hpp"
#include "core/segmented_plan.hpp"
#include "core/variant_names.hpp"
#include "gpuscan/gl/plan.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/execute.hpp"
#include "gl/segmented_program.hpp"

namespace gpuscan::gl {
namespace {

struct ResolvedSegmented {
  core::TileShape shape;
  core::SegmentedPlan plan;
};

core::HeadSource head_source(SegmentHeads heads) {
  if (heads > SegmentHeads::keys_u64)
    throw Error(Errc::invalid_argument, "unknown SegmentHeads value " + std::to_string(static_cast<int>(heads)));
  return static_cast<core::HeadSource>(heads);  // the same values: flags, u32 keys, u64 keys
}

ResolvedSegmented resolve_segmented(const Context& ctx, uint64_t count, const ScanConfig& config, SegmentHeads heads) {
  const core::HeadSource source = head_source(heads);
  const GlInfo& info = ctx.info();
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info));
  core::check_shared_memory(shape, config.type, info.max_shared_memory_bytes);
  core::check_segmented_config(config);
  impl_of(ctx).reduce_without_subgroups(config.type);  // refuses the types GL lacks
  const uint64_t tile = uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4;
  return {shape, core::plan_segmented(count, tile, config.type, config.kind == ScanKind::inclusive, source,
                                      {impl_of(ctx).max_groups_x, info.max_workgroup_count[1]})};
}

core::Program program_of(const ResolvedSegmented& r, const ScanConfig& config, SegmentHeads heads) {
  core::SegmentedLowering how;
  how.head_unit = core::head_unit_bytes(head_source(heads));
  how.scan.element_size = element_size(config.type);
  how.key_of = [&](const core::SegDispatch& d) {
    return core::segmented_kernel_key(d, config.type, config.op, r.shape.workgroup_size, r.shape.vectors_per_lane,
                                      ".no_subgroups");
  };
  // OpenGL plans run in one window with the count known: no carry kernels, no indirect_count.
  how.scan.key_of = [](const core::Dispatch&) -> PipelineKey {
    throw Error(Errc::invalid_argument, "internal: a scan dispatch in an OpenGL segmented plan");
  };
  return core::lower_segmented_plan(r.plan, how);
}

}  // namespace

core::Program segmented_scan_program(const Context& ctx, uint64_t count, const ScanConfig& config, SegmentHeads heads) {
  return program_of(resolve_segmented(ctx, count, config, heads), config, heads);
}

TempRequirements segmented_scan_temp(const Context& ctx, const primitive::SegmentedScan& s, uint64_t max_count) {
  TempRequirements req;
  req.alignment = element_size(s.config.type);
  req.size = resolve_segmented(ctx, max_count, s.config, SegmentHeads::flags).plan.temp_bytes;
  return req;
}

std::string segmented_scan_describe(const Context& ctx, const primitive::SegmentedScan& s, uint64_t count) {
  const SegmentHeads heads = s.heads;
  const ResolvedSegmented r = resolve_segmented(ctx, count, s.config, heads);
  return "segmented reduce-then-scan without subgroups, heads from " + std::string(to_string(heads)) + ", W = " +
         std::to_string(r.shape.workgroup_size) + ", " + std::to_string(r.shape.vectors_per_lane) +
         " vectors per lane\n" + core::describe(r.plan);
}

void segmented_scan_issue(const Context& ctx, const primitive::SegmentedScan& s, const SegmentedScanBuffers& b) {
  const SegmentedScanArgs args{s.config, s.heads, b.count, b.input, b.heads, b.output, b.temp};
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const ResolvedSegmented r = resolve_segmented(ctx, args.count, args.config, args.heads_kind);
  if (args.count == 0) return;
  core::check_segmented_buffers(
      args.input, args.heads, args.output, args.temp, args.count, element_size(args.config.type),
      core::head_unit_bytes(head_source(args.heads_kind)), r.plan.temp_bytes,
      [&](const char* what, const BufferView& view, uint64_t count, uint32_t unit, const char* need) {
        check_view(impl, what, view, count, unit, need);
      },
      overlaps);
  const BufferView buffers[4] = {args.input, args.heads, args.output, args.temp};  // core::SegBuffer's order
  execute(impl, program_of(r, args.config, args.heads_kind), buffers);
}

// The free calls: one plan each, made for this one call.

TempRequirements segmented_scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config) {
  return Plan(ctx, primitive::SegmentedScan{config}, core::one_call(count)).temp_requirements();
}

std::string describe_segmented_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config,
                                         SegmentHeads heads) {
  return Plan(ctx, primitive::SegmentedScan{config, heads}, core::one_call(count)).describe(count);
}

void record_segmented_scan(const Context& ctx, const SegmentedScanArgs& args) {
  Plan(ctx, primitive::SegmentedScan{args.config, args.heads_kind}, core::one_call(args.count))
      .record({args.count, args.input, args.heads, args.output, args.temp});
}

// A one-shot plan on host data (gpuscan/gl/plan.hpp).
std::vector<std::byte> segmented_scan_bytes(const Context& ctx, std::span<const std::byte> values,
                                            std::span<const std::byte> heads, SegmentHeads heads_kind,
                                            const ScanConfig& config) {
  impl_of(ctx).check_current();
  return Plan(ctx, primitive::SegmentedScan{config, heads_kind},
              core::one_call(values.size() / element_size(config.type))).run({.values = values, .heads = heads});
}

template <GlElement T>
std::vector<T> segmented_scan(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              ScanConfig config) {
  config.type = data_type_of<T>::value;
  return gpuscan::detail::from_bytes<T>(
      segmented_scan_bytes(ctx, std::as_bytes(values), std::as_bytes(flags), SegmentHeads::flags, config));
}

template <GlElement T, class Key>
std::vector<T> segmented_scan_by_key(const Context& ctx, std::span<const Key> keys, std::span<const T> values,
                                     ScanConfig config) {
  static_assert(std::is_same_v<Key, uint32_t> || std::is_same_v<Key, uint64_t>, "keys are uint32_t or uint64_t");
  config.type = data_type_of<T>::value;
  return gpuscan::detail::from_bytes<T>(segmented_scan_bytes(
      ctx, std::as_bytes(values), std::as_bytes(keys), sizeof(Key) == 8 ? SegmentHeads::keys_u64 : SegmentHeads::keys_u32,
      config));
}

#define GPUSCAN_GL_SEGMENTED_INSTANTIATE(T)                                                                        \
  template std::vector<T> segmented_scan(const Context&, std::span<const T>, std::span<const uint32_t>, ScanConfig); \
  template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint32_t>, std::span<const T>,    \
                                                ScanConfig);                                                      \
  template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint64_t>, std::span<const T>,    \
                                                ScanConfig);
GPUSCAN_GL_SEGMENTED_INSTANTIATE(uint32_t)
GPUSCAN_GL_SEGMENTED_INSTANTIATE(int32_t)
GPUSCAN_GL_SEGMENTED_INSTANTIATE(float)
GPUSCAN_GL_SEGMENTED_INSTANTIATE(uint64_t)
GPUSCAN_GL_SEGMENTED_INSTANTIATE(int64_t)
GPUSCAN_GL_SEGMENTED_INSTANTIATE(double)
#undef GPUSCAN_GL_SEGMENTED_INSTANTIATE

}  // namespace gpuscan::gl
