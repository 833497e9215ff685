// Segmented scans on Vulkan (include/gpuscan/segmented.hpp): checks the arguments, asks src/core for the
// plan (core/segmented_plan.hpp) and records it, as Plan<primitive::SegmentedScan>'s part
// (vulkan/segmented_program.hpp); plus the free calls over that plan and the convenience calls.
//
// Bindings (shaders/common/segmented.glsl): 0 values, 1 output -- or, for seg_reduce_tiles, which writes
// no values, the tile heads --, 2 tile totals, 3 pass_io.glsl's carry binding (a window's running value
// in temp, the indirect words of a count in GPU memory, or unread: the values again), 4 heads (flags or
// keys) at push-constant word 10 (segmented.glsl's heads_offset, after PassParams' ten; word 11 is
// heads_before). core::lower_segmented_plan makes the program, the executor records it.
#include <algorithm>
#include <cstring>
#include <optional>
#include <variant>

#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/segmented_checks.hpp"
#include "core/plan_program.hpp"
#include "core/segmented_plan.hpp"
#include "core/variant_names.hpp"
#include "core/windows.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/segmented.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/segmented_program.hpp"
#include "vulkan/indirect.hpp"

namespace gpuscan {
namespace {

struct ResolvedSegmented {
  uint32_t workgroup_size;
  uint32_t vectors_per_lane;
  core::SegmentedPlan plan;
  core::IndirectRegion indirect;  // with a count in GPU memory: where its words are in temp
  uint64_t window = 0;            // elements of a window (one binding of values and of heads)
};

core::HeadSource head_source(SegmentHeads heads) {
  switch (heads) {
    case SegmentHeads::flags: return core::HeadSource::flags;
    case SegmentHeads::keys_u32: return core::HeadSource::keys32;
    case SegmentHeads::keys_u64: return core::HeadSource::keys64;
  }
  throw Error(Errc::invalid_argument, "unknown SegmentHeads value " + std::to_string(static_cast<int>(heads)));
}

// `extent`: the plan to record, or its outline (core::PlanExtent) for sizing temp and describing it.
ResolvedSegmented resolve_segmented(const Context& ctx, uint64_t count, const ScanConfig& config,
                                    SegmentHeads heads, bool indirect = false,
                                    core::PlanExtent extent = core::PlanExtent::full) {
  const core::HeadSource source = head_source(heads);
  impl_of(ctx).check_count(count, element_size(config.type), "segmented scan");
  const DeviceInfo& info = ctx.device_info();
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info),
                       element_size(config.type));
  core::check_shared_memory(shape, config.type, info.max_shared_memory_bytes);
  core::check_segmented_config(config);
  const Context::Impl& impl = impl_of(ctx);
  if (const std::string why = impl.type_obstacle(config.type, true); !why.empty())
    throw Error(Errc::unsupported, "segmented scan: " + why);
  constexpr VkSubgroupFeatureFlags needed =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
  if ((info.subgroup_operations & needed) != needed)
    throw Error(Errc::unsupported, "segmented scans need subgroup shuffles (shuffle and shuffle_relative) in "
                                   "compute shaders, which " + info.name + " lacks");
  const uint64_t tile = uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4;
  // Windows that one binding holds, of values and of heads alike (bindings only: no device addresses).
  const uint32_t unit = std::max(element_size(config.type), core::head_unit_bytes(source));
  const uint64_t window = core::segmented_window(impl.window_elements(unit), tile, source);
  ResolvedSegmented r{shape.workgroup_size, shape.vectors_per_lane,
                      core::plan_segmented(count, tile, config.type, config.kind == ScanKind::inclusive, source,
                                           {impl.max_groups_x, info.max_workgroup_count[1]}, window, extent),
                      {}, window};
  if (indirect) r.plan = core::plan_segmented_indirect(r.plan, element_size(config.type), &r.indirect);
  return r;
}

// The program of `r.plan` (`count`: the count, or a count in GPU memory's bound, `count_from`).
core::Program program_of(const Context& ctx, const ResolvedSegmented& r, const ScanConfig& config, SegmentHeads heads,
                         uint64_t count, const IndirectCount* count_from) {
  Context::Impl& impl = impl_of(ctx);
  core::SegmentedLowering how;
  how.head_unit = core::head_unit_bytes(head_source(heads));
  how.scan.element_size = element_size(config.type);
  how.key_of = [&](const core::SegDispatch& d) {
    return core::segmented_kernel_key(d, config.type, config.op, r.workgroup_size, r.vectors_per_lane);
  };
  how.scan.key_of = [&](const core::Dispatch& d) {  // the carry kernels between windows
    PipelineKey key;
    key.variant = core::scan_variant_name(d.kernel, config.type, config.op, WorkgroupAlgorithm::blelloch);
    key.op = core::op_constant(config.op);
    key.workgroup_size = r.workgroup_size;
    key.vectors_per_lane = r.vectors_per_lane;
    key.inclusive = d.inclusive;
    key.use_aux = d.kernel == core::Kernel::carry_save;
    key.spin_limit = impl.spin_limit(config.spin_limit);
    return key;
  };
  if (count_from)
    how.scan.count_from(r.indirect, count, r.workgroup_size * r.vectors_per_lane * 4, count_from->is_64bit,
                        impl.max_groups_x, count_from->status.buffer != VK_NULL_HANDLE, false);
  return core::lower_segmented_plan(r.plan, how);
}

// Records the steps of `r.plan` with its slots bound to `args`' views; with `cmd` VK_NULL_HANDLE only builds
// their pipelines (prepare_segmented_scan).
void record_plan(const Context& ctx, VkCommandBuffer cmd, const ResolvedSegmented& r, const SegmentedScanArgs& args) {
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  BufferView buffers[6] = {args.input, args.heads, args.output, args.temp, {}, {}};  // core::SegBuffer's order
  if (count_from) {
    buffers[core::seg_count] = count_from->buffer;
    buffers[core::seg_status] = count_from->status;
  }
  vk::execute(ctx, cmd, program_of(ctx, r, args.config, args.heads_kind, args.count, count_from), buffers);
}

}  // namespace

core::Program vk::segmented_scan_program(const Context& ctx, uint64_t count, const ScanConfig& config,
                                         SegmentHeads heads) {
  return program_of(ctx, resolve_segmented(ctx, count, config, heads), config, heads, count, nullptr);
}

TempRequirements vk::segmented_scan_temp(const Context& ctx, const primitive::SegmentedScan& s, uint64_t count,
                                         bool indirect) {
  const ScanConfig& config = s.config;
  TempRequirements req;
  req.alignment = element_size(config.type);
  // The heads' unit sizes the windows, so the storage covers every kind of heads.
  for (SegmentHeads heads : {SegmentHeads::flags, SegmentHeads::keys_u32, SegmentHeads::keys_u64})
    req.size = std::max<VkDeviceSize>(
        req.size, resolve_segmented(ctx, count, config, heads, indirect, core::PlanExtent::outline).plan.temp_bytes);
  if (indirect) req.usage |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  return req;
}

std::string vk::segmented_scan_describe(const Context& ctx, const primitive::SegmentedScan& s, uint64_t count) {
  const SegmentHeads heads = s.heads;
  const ResolvedSegmented r = resolve_segmented(ctx, count, s.config, heads, false, core::PlanExtent::outline);
  return "segmented reduce-then-scan, heads from " + std::string(to_string(heads)) + ", W = " +
         std::to_string(r.workgroup_size) + ", " + std::to_string(r.vectors_per_lane) + " vectors per lane\n" +
         core::describe(r.plan);
}

void vk::segmented_scan_prepare(const Context& ctx, const primitive::SegmentedScan& s, const PlanLimits& limits) {
  const ScanConfig& config = s.config;
  const SegmentHeads heads = s.heads;
  const uint64_t max_count = limits.max_count;
  const PrepareOptions options{.indirect = limits.count_from_gpu, .vector_aligned = limits.vector_aligned};
  SegmentedScanArgs args{config, heads};
  args.input = args.output = vk::stand_in_view(options.vector_aligned ? 0 : element_size(config.type));
  args.heads = args.temp = vk::stand_in_view();
  if (options.indirect) args.count_from = IndirectCount{vk::stand_in_view()};
  const uint64_t window = resolve_segmented(ctx, 1, config, heads).window;
  for (const uint64_t count : core::boundary_counts(max_count, window)) {
    args.count = count;
    record_plan(ctx, VK_NULL_HANDLE, resolve_segmented(ctx, count, config, heads, options.indirect), args);
  }
}

void vk::segmented_scan_record(const Context& ctx, VkCommandBuffer cmd, const primitive::SegmentedScan& s,
                               const SegmentedScanBuffers& b) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const SegmentedScanArgs args{s.config, s.heads, b.count, b.input, b.heads, b.output, b.temp, b.count_from};
  const ResolvedSegmented r =
      resolve_segmented(ctx, args.count, args.config, args.heads_kind, args.count_from.has_value());
  if (args.count == 0 && !args.count_from) return;
  const uint32_t esize = element_size(args.config.type);
  core::check_segmented_buffers(args.input, args.heads, args.output, args.temp, args.count, esize,
                                core::head_unit_bytes(head_source(args.heads_kind)), r.plan.temp_bytes, vk::check_view,
                                vk::overlaps);
  if (args.count_from) {
    const core::ByteRange written[] = {vk::byte_range(args.output, args.count * esize),
                                       vk::byte_range(args.temp, r.plan.temp_bytes)};
    vk::check_indirect_count(*args.count_from, args.temp, written, "the output or temp range", "a segmented scan");
  }
  record_plan(ctx, cmd, r, args);
}

// The free calls: one plan each, made for this one call (its pipelines are built at the first record, then
// kept by the context).

TempRequirements segmented_scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config,
                                                   bool indirect) {
  return Plan(ctx, primitive::SegmentedScan{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_segmented_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config,
                                         SegmentHeads heads) {
  return Plan(ctx, primitive::SegmentedScan{config, heads}, core::one_call(count)).describe(count);
}

void prepare_segmented_scan(const Context& ctx, uint64_t max_count, const ScanConfig& config, SegmentHeads heads,
                            const PrepareOptions& options) {
  Plan(ctx, primitive::SegmentedScan{config, heads},
       {.max_count = max_count, .count_from_gpu = options.indirect, .vector_aligned = options.vector_aligned});
}

void record_segmented_scan(const Context& ctx, VkCommandBuffer cmd, const SegmentedScanArgs& args) {
  Plan(ctx, primitive::SegmentedScan{args.config, args.heads_kind},
       core::one_call(args.count, args.count_from.has_value()))
      .record(cmd, {args.count, args.input, args.heads, args.output, args.temp, args.count_from});
}

namespace {

template <class T>
std::vector<T> run_segmented(const Context& ctx, std::span<const std::byte> values, std::span<const std::byte> heads,
                             SegmentHeads heads_kind, const ScanConfig& config) {
  return gpuscan::detail::from_bytes<T>(segmented_scan_bytes(ctx, values, heads, heads_kind, config));
}

}  // namespace

// A one-shot plan on host data (gpuscan/vulkan/plan.hpp).
std::vector<std::byte> segmented_scan_bytes(const Context& ctx, std::span<const std::byte> values,
                                            std::span<const std::byte> heads, SegmentHeads heads_kind,
                                            const ScanConfig& config) {
  return Plan(ctx, primitive::SegmentedScan{config, heads_kind},
              core::one_call(values.size() / element_size(config.type))).run({.values = values, .heads = heads});
}

template <Element T>
std::vector<T> segmented_scan(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              ScanConfig config) {
  config.type = data_type_of<T>::value;
  return run_segmented<T>(ctx, std::as_bytes(values), std::as_bytes(flags), SegmentHeads::flags, config);
}

template <Element T, class Key>
std::vector<T> segmented_scan_by_key(const Context& ctx, std::span<const Key> keys, std::span<const T> values,
                                     ScanConfig config) {
  static_assert(std::is_same_v<Key, uint32_t> || std::is_same_v<Key, uint64_t>, "keys are uint32_t or uint64_t");
  config.type = data_type_of<T>::value;
  return run_segmented<T>(ctx, std::as_bytes(values), std::as_bytes(keys),
                          sizeof(Key) == 8 ? SegmentHeads::keys_u64 : SegmentHeads::keys_u32, config);
}

#define GPUSCAN_SEGMENTED_INSTANTIATE(T)                                                                          \
  template std::vector<T> segmented_scan(const Context&, std::span<const T>, std::span<const uint32_t>, ScanConfig); \
  template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint32_t>, std::span<const T>,    \
                                                ScanConfig);                                                      \
  template std::vector<T> segmented_scan_by_key(const Context&, std::span<const uint64_t>, std::span<const T>,    \
                                                ScanConfig);
GPUSCAN_SEGMENTED_INSTANTIATE(uint32_t)
GPUSCAN_SEGMENTED_INSTANTIATE(int32_t)
GPUSCAN_SEGMENTED_INSTANTIATE(float)
GPUSCAN_SEGMENTED_INSTANTIATE(uint64_t)
GPUSCAN_SEGMENTED_INSTANTIATE(int64_t)
GPUSCAN_SEGMENTED_INSTANTIATE(double)
#undef GPUSCAN_SEGMENTED_INSTANTIATE

}  // namespace gpuscan
