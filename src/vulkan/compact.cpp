// Stream compaction on Vulkan (include/gpuscan/compact.hpp): checks the arguments, asks src/core for
// the plan (count, scan of the tile counts, scatter) and records it; plus the convenience calls.
//
// Bindings: 0 input, 1 output, 2 temp (tile counts / offsets), 3 flags, 4 count, 5 the kept elements'
// input indices (vk::record_select_indexed; otherwise the output again, unwritten). The predicate kind is
// specialization constant 6 (one pipeline per kind), its constants push-constant words 8 and 9: the
// push-constant range grew from 6 to 10 words rather than passing constants through a buffer, so
// select_if needs no upload of its constants and no extra binding.
#include <algorithm>
#include <bit>
#include <cstring>
#include <sstream>
#include <variant>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "core/compact_policy.hpp"
#include "core/plan_checks.hpp"
#include "core/plan_program.hpp"
#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "core/variant_names.hpp"
#include "core/windows.hpp"
#include "gpuscan/vulkan/compact.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/compact_indexed.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/indirect.hpp"

namespace gpuscan {
namespace {

struct ResolvedCompact {
  CompactPath path;
  CompactAlgorithm algorithm;
  uint32_t workgroup_size;
  uint32_t vectors_per_lane;
  bool counts_multipass;  // the tile counts are scanned by the multipass (Blelloch) plan
  core::Plan plan;
  core::IndirectRegion indirect;  // with a count in GPU memory: where its words are in temp
};

// `extent`: the plan to record, or its outline (core::PlanExtent) for sizing temp and describing it.
ResolvedCompact resolve_compact(const Context& ctx, uint64_t count, const CompactConfig& config,
                                bool partition = false, bool temp_zeroed = false, bool indirect = false,
                                core::PlanExtent extent = core::PlanExtent::full) {
  const uint32_t esize = element_size(config.type);
  impl_of(ctx).check_count(count, esize, "compaction");
  const DeviceInfo& info = ctx.device_info();
  // The 8-byte types' predicates compare 64-bit integers or doubles (the elements move as uvec2).
  if (const std::string why = impl_of(ctx).type_obstacle(config.type, false, "compactions"); !why.empty())
    throw Error(Errc::unsupported, why);
  const core::CompactCaps caps{
      .workgroup = core::workgroup_limits(info),
      .max_shared_memory_bytes = info.max_shared_memory_bytes,
      .ballots = info.has_subgroup_ballot() && (info.subgroup_operations & VK_SUBGROUP_FEATURE_BASIC_BIT),
      .no_ballots = "the device has no subgroup ballots in compute shaders",
      .subgroup_arithmetic = info.has_subgroup_arithmetic(),
      .single_pass = ctx.single_pass_available(),
      .no_single_pass = "single-pass compaction: the context cannot run the single-pass scan's look-back (Vulkan "
                        "1.2 with shaderInt64 and shaderBufferInt64Atomics, subgroup arithmetic, shuffles and "
                        "ballot); use CompactAlgorithm::three_pass",
      .window = impl_of(ctx).window_elements(config.type)};
  const core::CompactChoice c =
      core::choose_compaction(caps, *impl_of(ctx).profile, config, count, partition, indirect);
  const core::TileShape shape = c.shape;
  ResolvedCompact r{c.path, c.algorithm, shape.workgroup_size, shape.vectors_per_lane, c.counts_multipass, {}, {}};
  r.plan = core::plan_compaction(count, shape, r.counts_multipass, partition,
                                 {impl_of(ctx).max_groups_x, info.max_workgroup_count[1]},
                                 r.algorithm == CompactAlgorithm::single_pass, temp_zeroed, caps.window, extent);
  if (indirect) r.plan = core::plan_indirect(r.plan, 4, &r.indirect);
  return r;
}

// indirect_count.comp's view of the plan: tiles of W·K·4 elements at level 0, then the tile counts'
// scan in its own blocks.
core::IndirectCountParams indirect_shape(const ResolvedCompact& r, uint64_t bound) {
  core::IndirectCountParams shape;
  shape.bound = bound;
  const uint32_t tile = r.workgroup_size * r.vectors_per_lane * 4;
  shape.level0_block_size = tile;
  shape.block_size = r.counts_multipass ? 2 * r.workgroup_size : tile;
  shape.levels = r.indirect.levels;
  return shape;
}

bool single_pass_plan(const core::Plan& plan) {
  for (const core::Step& s : plan.steps)
    if (const auto* d = std::get_if<core::Dispatch>(&s); d && d->kernel == core::Kernel::compact_single_pass)
      return true;
  return false;
}

// What temp must offer for `plan`: the single-pass look-back state as the single-pass scan's, and with a
// count in GPU memory room for dispatch commands.
TempRequirements temp_needs(const Context& ctx, const core::Plan& plan, bool indirect = false) {
  TempRequirements need = single_pass_plan(plan) ? vk::look_back_temp_needs(ctx) : TempRequirements{};
  need.size = plan.temp_elements * 4;
  if (indirect) need.usage |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  return need;
}

// Bytes per element of what SelectArgs::flags holds.
uint32_t head_bytes(SegmentHeads kind) {
  switch (kind) {
    case SegmentHeads::flags:
    case SegmentHeads::keys_u32: return 4;
    case SegmentHeads::keys_u64: return 8;
  }
  throw Error(Errc::invalid_argument, "unknown SelectArgs::flags_kind " + std::to_string(static_cast<uint32_t>(kind)));
}

// Specialization constant 6 of the compaction kernels: 0 for flags, else the predicate's kind + 1.
uint32_t predicate_constant(bool flagged, PredicateKind kind) {
  if (flagged) return 0;
  if (kind > PredicateKind::run_start)
    throw Error(Errc::invalid_argument, "unknown predicate kind " + std::to_string(static_cast<uint32_t>(kind)));
  return static_cast<uint32_t>(kind) + 1;
}

// Records the steps of `r.plan` with its slots bound to `args`' views; with `cmd` VK_NULL_HANDLE only
// builds their pipelines (prepare_compact). `predicate`: specialization constant 6 (0 = flags);
// `indexed`: where the kept elements' indices go, and whether their values go too.
void record_plan(const Context& ctx, VkCommandBuffer cmd, const ResolvedCompact& r, const SelectArgs& args,
                 bool flagged, uint32_t predicate, const IndirectCount* count_from,
                 const vk::IndexedSelect* indexed = nullptr) {
  Context::Impl& impl = impl_of(ctx);
  const uint64_t n = args.count;
  const bool indices_only = indexed && !indexed->values;
  core::CompactLowering how;
  how.count = n;
  how.value_bytes = element_size(args.config.type);
  how.output_unit = indices_only ? 4 : how.value_bytes;
  how.flagged = flagged;
  how.flag_unit = flagged ? head_bytes(args.flags_kind) : 4;
  how.flag_vectors = args.flags_kind == SegmentHeads::flags;
  how.predicate_a = args.predicate.a;
  how.predicate_b = args.predicate.b;
  how.indices = indexed != nullptr;
  how.scan.key_of = [&](const core::Dispatch& d) {
    PipelineKey key;
    key.workgroup_size = r.workgroup_size;
    key.vectors_per_lane = r.vectors_per_lane;
    key.spin_limit = impl.spin_limit(args.config.spin_limit);
    if (!core::is_compaction_kernel(d.kernel)) {
      key.variant = core::compact_variant_name(d.kernel, args.config.type, false);
      key.inclusive = d.inclusive;
      key.use_aux = d.write_block_sums || d.read_offsets;
      return key;
    }
    key.variant = core::compact_variant_name(d.kernel, args.config.type, r.path == CompactPath::ballot);
    key.predicate = predicate;
    if (flagged) key.heads = static_cast<uint32_t>(args.flags_kind);  // HEADS: the same values
    if (indexed) key.outputs = (indexed->values ? 1u : 0u) | 2u;      // OUT_VALUES, OUT_INDICES
    if (d.kernel == core::Kernel::compact_single_pass) {
      key.withhold_first_tile = impl.withhold_first_tile;
      key.late_fallback = impl.late_fallback;
      key.prefix_stride = impl.prefix_stride;
      key.tiles_per_workgroup = impl.tiles_per_workgroup(args.config.tiles_per_workgroup, d.blocks);
    }
    return key;
  };
  // No elements: empty ranges; bind the one buffer that must exist. An indexed selection without values
  // binds its indices as the (unwritten) output.
  const bool temp = r.plan.temp_elements > 0;
  BufferView buffers[8] = {n == 0 ? args.count_out : args.input,
                           n == 0 ? args.count_out : indices_only ? indexed->indices : args.output,
                           temp || n > 0 ? args.temp : args.count_out,
                           {},
                           {},
                           args.flags,
                           args.count_out,
                           indexed ? indexed->indices : BufferView{}};  // core::PlanBuffer's order
  if (count_from) {
    const core::IndirectCountParams shape = indirect_shape(r, n);
    how.scan.count_from(r.indirect, n, shape.block_size, count_from->is_64bit, impl.max_groups_x,
                        count_from->status.buffer != VK_NULL_HANDLE, true);
    how.scan.count.level0_block_size = shape.level0_block_size;
    buffers[core::plan_count] = count_from->buffer;
    buffers[core::plan_status] = count_from->status;
  }
  vk::execute(ctx, cmd, core::lower_compact_plan(r.plan, how), buffers);
}

void check_compact_views(const Context& ctx, const ResolvedCompact& r, const SelectArgs& args, bool flagged,
                         bool partition, const vk::IndexedSelect* indexed, uint32_t flag_size);

void record_compact(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args, bool flagged, bool partition,
                    const vk::IndexedSelect* indexed = nullptr) {
  // A null command buffer only builds the pipelines (prepare_run_length's walk through the indexed
  // selection); the public record calls refuse it before they get here.
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const ResolvedCompact r =
      resolve_compact(ctx, args.count, args.config, partition, args.temp_zeroed, count_from != nullptr);
  const uint32_t predicate = indexed ? indexed->predicate : predicate_constant(flagged, args.predicate.kind);
  if (indexed || (!flagged && args.predicate.kind == PredicateKind::run_start))
    core::check_run_start_fits(args.count, impl_of(ctx).window_elements(args.config.type));
  if (indexed && args.count > UINT32_MAX)
    throw Error(Errc::too_large, "input indices are u32: at most 2^32 - 1 elements, not " + std::to_string(args.count));
  const uint32_t flag_size = flagged ? head_bytes(args.flags_kind) : 4;
  if (flagged && args.flags_kind != SegmentHeads::flags)  // keys compare with the one before, as run_start
    core::check_run_start_fits(args.count, impl_of(ctx).window_elements(std::max(element_size(args.config.type), flag_size)));

  if (cmd != VK_NULL_HANDLE) check_compact_views(ctx, r, args, flagged, partition, indexed, flag_size);
  record_plan(ctx, cmd, r, args, flagged, predicate, count_from, indexed);
}

// The caller's views for record_compact: room, alignment and no overlaps.
void check_compact_views(const Context& ctx, const ResolvedCompact& r, const SelectArgs& args, bool flagged,
                         bool partition, const vk::IndexedSelect* indexed, uint32_t flag_size) {
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  vk::check_view("count", args.count_out, 1, 4, "the compaction needs");
  const uint64_t n = args.count;  // with count_from: the upper bound
  const uint32_t esize = element_size(args.config.type);
  const uint64_t bytes = n * esize;  // of the input and of the output
  const uint64_t flag_bytes = n * flag_size;
  const uint64_t temp_bytes = r.plan.temp_elements * 4;
  if (n > 0 && indexed) {
    vk::check_view("indices", indexed->indices, n, 4, "the compaction needs room for the worst case (every element kept):");
    const uint64_t index_bytes = n * 4;
    if (vk::overlaps(indexed->indices, index_bytes, args.input, bytes) ||
        (indexed->values && vk::overlaps(indexed->indices, index_bytes, args.output, bytes)) ||
        vk::overlaps(indexed->indices, index_bytes, args.count_out, 4) ||
        vk::overlaps(indexed->indices, index_bytes, args.temp, r.plan.temp_elements * 4))
      throw Error(Errc::invalid_argument, "the indices overlap the input, output, count or temp range");
  }
  if (n > 0) {
    vk::check_view("input", args.input, n, esize, "the compaction needs");
    if (partition) vk::check_view("output", args.output, n, esize, "the partition writes every element:");
    else if (!indexed || indexed->values)
      vk::check_view("output", args.output, n, esize, "the compaction needs room for the worst case (every element kept):");
    if (flagged)
      vk::check_view("flags", args.flags, n, flag_size,
                     args.flags_kind == SegmentHeads::flags ? "the compaction needs one flag per element:"
                                                            : "the compaction needs one key per element:");
    if (vk::overlaps(args.input, bytes, args.output, bytes))
      throw Error(Errc::invalid_argument, "input and output ranges overlap; compaction is not done in place");
    if (flagged && vk::overlaps(args.flags, flag_bytes, args.output, bytes))
      throw Error(Errc::invalid_argument, "flags and output ranges overlap");
    if (vk::overlaps(args.count_out, 4, args.output, bytes) || vk::overlaps(args.count_out, 4, args.input, bytes) ||
        (flagged && vk::overlaps(args.count_out, 4, args.flags, flag_bytes)))
      throw Error(Errc::invalid_argument, "the count overlaps the input, flags or output range");
  }
  if (temp_bytes > 0) {  // n > 0, or a count in GPU memory (the plan's words)
    vk::check_view("temp", args.temp, r.plan.temp_elements, 4, "the compaction needs");
    if (vk::overlaps(args.temp, temp_bytes, args.input, bytes) || vk::overlaps(args.temp, temp_bytes, args.output, bytes) ||
        vk::overlaps(args.temp, temp_bytes, args.count_out, 4) || (flagged && vk::overlaps(args.temp, temp_bytes, args.flags, flag_bytes)))
      throw Error(Errc::invalid_argument, "temp storage overlaps the input, flags, output or count");
    vk::check_temp_needs(args.temp, temp_needs(ctx, r.plan), "the single-pass compaction");
  }
  if (count_from) {
    const core::ByteRange written[] = {vk::byte_range(args.output, bytes), vk::byte_range(args.temp, temp_bytes),
                                       vk::byte_range(args.count_out, 4)};
    vk::check_indirect_count(*count_from, args.temp, written, "the output, temp or count (count_out) range",
                             "a compaction");
  }
}

// A one-shot plan on host data (gpuscan/vulkan/plan.hpp). `flags`: values.size() flags or keys, as
// `flags_kind` says; nullptr for a predicate.
template <class T>
PartitionResult<T> run_compact(const Context& ctx, std::span<const T> values, const void* flags,
                               Predicate predicate, CompactConfig config, bool partition,
                               SegmentHeads flags_kind = SegmentHeads::flags) {
  config.type = data_type_of<T>::value;
  const uint64_t flag_bytes = flags ? values.size() * head_bytes(flags_kind) : 0;
  primitive::Select::Output r =
      Plan(ctx,
           primitive::Select{.config = config,
                             .flagged = flags != nullptr,
                             .predicate = flags ? PredicateKind::nonzero : predicate.kind,
                             .partition = partition,
                             .flags_kind = flags_kind}, core::one_call(values.size()))
          .run({.values = std::as_bytes(values),
                .flags = {static_cast<const std::byte*>(flags), static_cast<size_t>(flag_bytes)},
                .predicate = predicate});
  return {gpuscan::detail::from_bytes<T>(r.values), r.kept};
}

}  // namespace

TempRequirements vk::compact_temp(const Context& ctx, const primitive::Select& c, uint64_t count, bool indirect) {
  const CompactConfig& config = c.config;
  // The partition's plan (an inclusive scan of the counts; three-pass even where a selection runs
  // single-pass) is covered too: one allocation serves both.
  constexpr core::PlanExtent outline = core::PlanExtent::outline;
  TempRequirements req =
      temp_needs(ctx, resolve_compact(ctx, count, config, false, false, indirect, outline).plan, indirect);
  if (config.algorithm != CompactAlgorithm::single_pass) {
    const TempRequirements part =
        temp_needs(ctx, resolve_compact(ctx, count, config, true, false, indirect, outline).plan, indirect);
    req.size = std::max(req.size, part.size);
  }
  return req;
}

std::string vk::compact_describe(const Context& ctx, const primitive::Select& c, uint64_t count) {
  const ResolvedCompact r = resolve_compact(ctx, count, c.config, false, false, false, core::PlanExtent::outline);
  const std::string how = r.algorithm == CompactAlgorithm::single_pass
                              ? "tile counts chained by decoupled look-back"
                              : std::string("counts scanned by ") +
                                    (r.counts_multipass ? "multipass (blelloch)" : "reduce-then-scan");
  return "compaction, " + std::string(to_string(r.algorithm)) + ", " + std::string(to_string(r.path)) +
         " path, W = " + std::to_string(r.workgroup_size) + ", " + std::to_string(r.vectors_per_lane) +
         " vectors per lane, " + how + "\n" + core::describe(r.plan);
}

void vk::compact_prepare(const Context& ctx, const primitive::Select& c, const PlanLimits& limits) {
  const CompactConfig& config = c.config;
  const uint64_t max_count = limits.max_count;
  const CompactCall call{.flagged = c.flagged, .predicate = c.predicate, .partition = c.partition};
  const PrepareOptions options{.indirect = limits.count_from_gpu, .vector_aligned = limits.vector_aligned};
  const uint32_t predicate = predicate_constant(call.flagged, call.predicate);
  SelectArgs args;
  args.config = config;
  args.input = args.flags = vk::stand_in_view(options.vector_aligned ? 0 : element_size(config.type));
  args.output = args.count_out = args.temp = vk::stand_in_view();
  const IndirectCount from{vk::stand_in_view()};
  // Windows of the three-pass plan are whole tiles (core::plan_compaction), so their remainders start
  // after that many elements.
  const ResolvedCompact largest = resolve_compact(ctx, max_count, config, call.partition, false, options.indirect,
                                                  core::PlanExtent::outline);
  const uint64_t tile = uint64_t{largest.workgroup_size} * largest.vectors_per_lane * 4;
  const uint64_t window = impl_of(ctx).window_elements(config.type);
  for (const uint64_t count : core::boundary_counts(max_count, window - window % tile)) {
    args.count = count;
    const ResolvedCompact r = resolve_compact(ctx, count, config, call.partition, false, options.indirect);
    record_plan(ctx, VK_NULL_HANDLE, r, args, call.flagged, predicate, options.indirect ? &from : nullptr);
  }
}

void vk::check_partition(const Context& ctx, const CompactConfig& config) {
  resolve_compact(ctx, 0, config, true, false, false, core::PlanExtent::outline);
}

void vk::record_select_indexed(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args,
                               const IndexedSelect& how) {
  if (how.predicate != predicate_run_start && how.predicate != predicate_run_edge)
    throw Error(Errc::invalid_argument, "indexed selections find runs: predicate constant " +
                                            std::to_string(how.predicate) + " is neither run start nor run edge");
  record_compact(ctx, cmd, args, false, false, &how);
}

void vk::compact_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Select& c, const CompactBuffers& b) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const SelectArgs args{c.config, b.count, b.input,     b.flags,        b.predicate, b.output,
                        b.count_out, b.temp, b.temp_zeroed, b.count_from, c.flags_kind};
  record_compact(ctx, cmd, args, c.flagged, c.partition);
}

// The free calls: one plan each, made for this one call (its pipelines are built at the first record, then
// kept by the context).

TempRequirements compact_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config,
                                           bool indirect) {
  return Plan(ctx, primitive::Select{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_compact_plan(const Context& ctx, uint64_t count, const CompactConfig& config) {
  return Plan(ctx, primitive::Select{config}, core::one_call(count)).describe(count);
}

void prepare_compact(const Context& ctx, uint64_t max_count, const CompactConfig& config, const CompactCall& call,
                     const PrepareOptions& options) {
  Plan(ctx, primitive::Select{.config = config, .flagged = call.flagged, .predicate = call.predicate,
                              .partition = call.partition},
       {.max_count = max_count, .count_from_gpu = options.indirect, .vector_aligned = options.vector_aligned});
}

namespace {

void record_with_plan(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& a, bool flagged, bool partition) {
  Plan(ctx,
       primitive::Select{.config = a.config,
                         .flagged = flagged,
                         .predicate = flagged ? PredicateKind::nonzero : a.predicate.kind,
                         .partition = partition,
                         .flags_kind = flagged ? a.flags_kind : SegmentHeads::flags},
       core::one_call(a.count, a.count_from.has_value()))
      .record(cmd, {a.count, a.input, a.flags, a.predicate, a.output, a.count_out, a.temp, a.temp_zeroed, a.count_from});
}

}  // namespace

void record_select_if(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args) {
  record_with_plan(ctx, cmd, args, false, false);
}

void record_select_flagged(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args) {
  record_with_plan(ctx, cmd, args, true, false);
}

void record_partition_if(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args) {
  record_with_plan(ctx, cmd, args, false, true);
}

void record_partition_flagged(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args) {
  record_with_plan(ctx, cmd, args, true, true);
}

template <Element T>
std::vector<T> select_if(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config) {
  return run_compact(ctx, values, nullptr, predicate, config, false).values;
}

template <Element T>
std::vector<T> select_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              CompactConfig config) {
  core::check_flag_count(flags.size(), values.size());
  static const uint32_t none = 0;
  return run_compact(ctx, values, values.empty() ? &none : flags.data(), Predicate{}, config, false).values;
}

template <Element T>
PartitionResult<T> partition(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config) {
  return run_compact(ctx, values, nullptr, predicate, config, true);
}

template <Element T>
PartitionResult<T> partition_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                                     CompactConfig config) {
  core::check_flag_count(flags.size(), values.size());
  static const uint32_t none = 0;
  return run_compact(ctx, values, values.empty() ? &none : flags.data(), Predicate{}, config, true);
}

template <class Key, Element T>
std::pair<std::vector<Key>, std::vector<T>> unique_by_key(const Context& ctx, std::span<const Key> keys,
                                                          std::span<const T> values, CompactConfig config) {
  static_assert(std::is_same_v<Key, uint32_t> || std::is_same_v<Key, uint64_t>, "keys are u32 or u64");
  if (values.size() < keys.size())
    throw Error(Errc::invalid_argument, std::to_string(values.size()) + " values for " + std::to_string(keys.size()) +
                                            " keys: unique_by_key needs one value per key");
  values = values.first(keys.size());
  std::vector<Key> unique_keys = run_compact(ctx, keys, nullptr, Predicate::run_start(), config, false).values;
  if (keys.empty()) return {};
  constexpr SegmentHeads kind = sizeof(Key) == 4 ? SegmentHeads::keys_u32 : SegmentHeads::keys_u64;
  std::vector<T> firsts = run_compact(ctx, values, keys.data(), Predicate{}, config, false, kind).values;
  return {std::move(unique_keys), std::move(firsts)};
}

#define GPUSCAN_COMPACT_INSTANTIATE(T)                                                                      \
  template std::vector<T> select_if(const Context&, std::span<const T>, Predicate, CompactConfig);          \
  template std::vector<T> select_flagged(const Context&, std::span<const T>, std::span<const uint32_t>,     \
                                         CompactConfig);                                                    \
  template PartitionResult<T> partition(const Context&, std::span<const T>, Predicate, CompactConfig);      \
  template PartitionResult<T> partition_flagged(const Context&, std::span<const T>, std::span<const uint32_t>, \
                                                CompactConfig);                                             \
  template std::pair<std::vector<uint32_t>, std::vector<T>> unique_by_key(                                  \
      const Context&, std::span<const uint32_t>, std::span<const T>, CompactConfig);                        \
  template std::pair<std::vector<uint64_t>, std::vector<T>> unique_by_key(                                  \
      const Context&, std::span<const uint64_t>, std::span<const T>, CompactConfig);
GPUSCAN_COMPACT_INSTANTIATE(uint32_t)
GPUSCAN_COMPACT_INSTANTIATE(int32_t)
GPUSCAN_COMPACT_INSTANTIATE(float)
GPUSCAN_COMPACT_INSTANTIATE(uint64_t)
GPUSCAN_COMPACT_INSTANTIATE(int64_t)
GPUSCAN_COMPACT_INSTANTIATE(double)
#undef GPUSCAN_COMPACT_INSTANTIATE

}  // namespace gpuscan
