// Scans, reductions and compaction on OpenGL: checks the caller's buffers, asks src/core for the plan
// and its program (core/plan_program.hpp), and issues that with GL's executor (gl/execute.hpp), as the
// Vulkan backend records the same programs.
#include <algorithm>
#include <functional>
#include <optional>
#include <variant>
#include <vector>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "core/compact_policy.hpp"
#include "core/plan_checks.hpp"
#include "core/scan_policy.hpp"
#include "core/plan_program.hpp"
#include "core/scan_shape.hpp"
#include "core/variant_names.hpp"
#include "core/windows.hpp"
#include "gl/buffers.hpp"
#include "gl/compact_indexed.hpp"
#include "gl/context_impl.hpp"
#include "gl/execute.hpp"
#include "gl/scan_program.hpp"
#include "gl/record.hpp"

namespace gpuscan::gl {
namespace {

struct Resolved {
  Algorithm algorithm = Algorithm::multipass;
  WorkgroupAlgorithm workgroup = WorkgroupAlgorithm::blelloch;
  CompactPath path = CompactPath::shared_memory;  // compaction
  core::TileShape shape{};
  core::Plan plan;
  core::IndirectRegion indirect;  // with a count in GPU memory: where its words are in temp
  uint32_t block_size = 0;        // elements per workgroup at every level
  uint64_t plan_bound = 0;        // the count the plan is made for (an indirect count's upper bound)
  bool min_one_block = false;     // a reduction runs one workgroup per level even for no elements
  ScanConfig config;              // a scan's, with a custom operator's element_size filled in
  std::string custom_prefix;      // of a custom operator's programs ("custom3."); empty for the built-in ones
};

core::PlanLimits limits(const Context& ctx) {
  return {impl_of(ctx).max_groups_x, impl_of(ctx).info.max_workgroup_count[1]};
}

// `extent`: the plan to issue, or its outline (core::PlanExtent) for sizing temp and describing it.
Resolved resolve_scan(const Context& ctx, uint64_t count, const ScanConfig& config, bool indirect = false,
                      core::PlanExtent extent = core::PlanExtent::full) {
  const GlInfo& info = ctx.info();
  Resolved r;
  r.config = config;
  if (config.custom_op) {  // compiled (or found) first: its element size is needed from here on
    const Context::Impl::CompiledCustomOp& custom = impl_of(ctx).custom_op(*config.custom_op);
    r.config.custom_op->element_size = custom.element_size;
    r.custom_prefix = custom.prefix;
  }
  const uint32_t esize = core::element_bytes(r.config);
  // GL does not say how much memory the device has: only counts past 64-bit byte offsets are refused here.
  core::check_count_fits(count, esize, 0, "scan");
  r.shape = core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info), esize);
  core::check_shared_memory(r.shape, esize, info.max_shared_memory_bytes);
  r.algorithm = ctx.resolve(config, count);  // also refuses the types and operators GL lacks
  // tile_shape above checks a requested W and K; the shape itself is the policy's.
  ScanConfig chosen = r.config;
  chosen.algorithm = r.algorithm;
  r.shape = core::choose_scan(impl_of(ctx).caps(config.type), *impl_of(ctx).profile, chosen, count).shape;
  if (r.algorithm == Algorithm::multipass && !config.custom_op) r.workgroup = ctx.resolve(config.workgroup, config.type);
  if (config.custom_op && config.workgroup == WorkgroupAlgorithm::subgroup)
    throw Error(Errc::unsupported, "custom operators run the Blelloch workgroup scan (no subgroup operation "
                                   "implements them); use WorkgroupAlgorithm::blelloch or automatic");
  const uint64_t window = core::window_elements(impl_of(ctx).max_binding_bytes, impl_of(ctx).binding_alignment(esize), esize);
  r.plan = core::plan_scan(r.algorithm, count, r.config, r.shape, limits(ctx), false, window, extent);
  r.plan_bound = count;
  r.block_size = r.algorithm == Algorithm::multipass ? 2 * r.shape.workgroup_size
                                                     : r.shape.workgroup_size * r.shape.vectors_per_lane * 4;
  if (indirect) r.plan = core::plan_indirect(r.plan, esize, &r.indirect);
  return r;
}

// A reduction: core's plan of reduce_tiles passes (windowed past one binding), as on Vulkan.
Resolved resolve_reduce(const Context& ctx, uint64_t count, const ReduceConfig& config, bool indirect = false,
                        core::PlanExtent extent = core::PlanExtent::full) {
  const GlInfo& info = ctx.info();
  core::check_count_fits(count, element_size(config.type), 0, "reduction");
  Resolved r;
  r.shape = core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info));
  core::check_op(config.op, config.type);
  impl_of(ctx).reduce_without_subgroups(config.type);  // refuses the types GL lacks
  core::check_shared_memory(r.shape, config.type, info.max_shared_memory_bytes);
  const uint32_t esize = element_size(config.type);
  const uint64_t window = core::window_elements(impl_of(ctx).max_binding_bytes, impl_of(ctx).binding_alignment(esize), esize);
  r.algorithm = Algorithm::reduce_then_scan;  // its tile kernels
  r.plan = core::plan_reduction(count, config.type, r.shape, limits(ctx), window, extent);
  r.plan_bound = count;
  r.block_size = r.shape.workgroup_size * r.shape.vectors_per_lane * 4;
  r.min_one_block = true;
  if (indirect) r.plan = core::plan_indirect(r.plan, esize, &r.indirect);
  return r;
}

Resolved resolve_compact(const Context& ctx, uint64_t count, const CompactConfig& config, bool partition) {
  const GlInfo& info = ctx.info();
  // The 8-byte types' predicates compare 64-bit integers or doubles (the elements move as uvec2).
  impl_of(ctx).check_type(config.type);
  const core::CompactCaps caps{
      .workgroup = core::workgroup_limits(info),
      .max_shared_memory_bytes = info.max_shared_memory_bytes,
      .ballots = info.subgroup_ballot,
      .no_ballots = impl_of(ctx).no_ballots(),
      .subgroup_arithmetic = info.subgroup_arithmetic,
      .single_pass = false,
      .no_single_pass = "the single-pass compaction is not offered on OpenGL: its look-back, as the single-pass "
                        "scan's, needs 64-bit buffer atomics and GL_KHR_shader_subgroup ballots, and the GL backend "
                        "builds no look-back kernels; use CompactAlgorithm::three_pass (or automatic)"};
  const core::CompactChoice c = core::choose_compaction(caps, *impl_of(ctx).profile, config, count, partition, false);
  Resolved r;
  r.shape = c.shape;
  r.path = c.path;
  r.algorithm = c.counts_multipass ? Algorithm::multipass : Algorithm::reduce_then_scan;
  r.plan = core::plan_compaction(count, r.shape, c.counts_multipass, partition, limits(ctx));
  return r;
}

// A scan or reduction plan as core's program (core/plan_program.hpp, core::PlanBuffer's buffers):
// `key_of(d)` names the program of a dispatch, `initial` is the carry-in of the plan's root dispatch.
core::Program program_of(Context::Impl& impl, const Resolved& r, uint32_t esize,
                         std::function<PipelineKey(const core::Dispatch&)> key_of, std::optional<uint64_t> initial,
                         const IndirectCount* count_from) {
  core::ScanLowering how;
  how.element_size = esize;
  how.key_of = std::move(key_of);
  how.initial = initial;
  if (count_from)
    how.count_from(r.indirect, r.plan_bound, r.block_size, count_from->is_64bit, impl.max_groups_x,
                   count_from->status.buffer != 0, r.min_one_block);
  return core::lower_scan_plan(r.plan, how);
}

// Issues program_of's program over the call's buffers.
void issue_scan_plan(Context::Impl& impl, const Resolved& r, const BufferView& input, const BufferView& output,
                     const BufferView& temp, uint32_t esize, std::function<PipelineKey(const core::Dispatch&)> key_of,
                     std::optional<uint64_t> initial, const IndirectCount* count_from, double* gpu_ns) {
  BufferView buffers[5] = {input, output, temp, {}, {}};  // core::PlanBuffer's order
  if (count_from) {
    buffers[core::plan_count] = count_from->buffer;
    buffers[core::plan_status] = count_from->status;
  }
  execute(impl, program_of(impl, r, esize, std::move(key_of), initial, count_from), buffers, gpu_ns);
}

// A scan kernel's program of `config` in `r`'s shape.
PipelineKey scan_key(const Resolved& r, const ScanConfig& config, const core::Dispatch& d) {
  PipelineKey key;
  key.variant = r.custom_prefix.empty() ? core::scan_variant_name(d.kernel, config.type, config.op, r.workgroup)
                                        : r.custom_prefix + core::custom_variant_name(d.kernel);
  key.op = core::op_constant(config.op);
  key.workgroup_size = r.shape.workgroup_size;
  key.vectors_per_lane = r.shape.vectors_per_lane;
  key.inclusive = d.inclusive;
  key.use_aux = d.write_block_sums || d.read_offsets || d.kernel == core::Kernel::carry_save;
  return key;
}

core::ByteRange byte_range(const BufferView& v, uint64_t bytes) { return {v.buffer, v.offset, bytes}; }

void check_count_from(const Context::Impl& impl, const IndirectCount& from, const BufferView& output,
                      uint64_t output_bytes, const BufferView& temp, uint64_t temp_bytes) {
  const core::ByteRange written[] = {byte_range(output, output_bytes), byte_range(temp, temp_bytes)};
  gl::check_count_from(impl, from, written, "the output or temp range");
}

// record_select_indexed's indices: room for every element, apart from the input, output, count and temp.
void check_indexed(const Context::Impl& impl, const SelectArgs& args, const IndexedSelect& how, uint64_t temp_bytes) {
  if (how.predicate != core::predicate_run_start && how.predicate != core::predicate_run_edge)
    throw Error(Errc::invalid_argument, "indexed selections find runs: predicate constant " +
                                            std::to_string(how.predicate) + " is neither run start nor run edge");
  const uint64_t n = args.count;
  if (n == 0) return;
  check_view(impl, "indices", how.indices, n, 4, "the compaction needs room for the worst case (every element kept):");
  const uint64_t bytes = n * element_size(args.config.type), index_bytes = n * 4;
  if (overlaps(how.indices, index_bytes, args.input, bytes) ||
      (how.values && overlaps(how.indices, index_bytes, args.output, bytes)) ||
      overlaps(how.indices, index_bytes, args.count_out, 4) || overlaps(how.indices, index_bytes, args.temp, temp_bytes))
    throw Error(Errc::invalid_argument, "the indices overlap the input, output, count or temp range");
}

// `indexed`: record_select_indexed's predicate and where the kept elements' indices go (binding 5).
void record_compact(const Context& ctx, const SelectArgs& args, bool flagged, bool partition,
                    const IndexedSelect* indexed = nullptr) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const Resolved r = resolve_compact(ctx, args.count, args.config, partition);
  const uint32_t predicate = indexed ? indexed->predicate : flagged ? 0u : static_cast<uint32_t>(args.predicate.kind) + 1;
  if (!indexed && !flagged && args.predicate.kind > PredicateKind::run_start)
    throw Error(Errc::invalid_argument, "unknown predicate kind " + std::to_string(predicate - 1));
  if (indexed) check_indexed(impl, args, *indexed, r.plan.temp_elements * 4);
  const uint32_t esize = element_size(args.config.type);
  if (indexed || (!flagged && args.predicate.kind == PredicateKind::run_start))
    core::check_run_start_fits(args.count,
                               core::window_elements(impl.max_binding_bytes, impl.binding_alignment(esize), esize));
  check_view(impl, "count", args.count_out, 1, 4, "the compaction needs");
  const uint64_t n = args.count;
  const uint64_t bytes = n * esize;  // of the input and of the output
  const uint64_t flag_bytes = n * 4;
  if (n > 0) {
    check_view(impl, "input", args.input, n, esize, "the compaction needs");
    if (partition) check_view(impl, "output", args.output, n, esize, "the partition writes every element:");
    else if (!indexed || indexed->values)  // indices alone: checked as the indices (check_indexed)
      check_view(impl, "output", args.output, n, esize, "the compaction needs room for the worst case (every element kept):");
    if (flagged) check_view(impl, "flags", args.flags, n, 4, "the compaction needs one flag per element:");
    if (overlaps(args.input, bytes, args.output, bytes))
      throw Error(Errc::invalid_argument, "input and output ranges overlap; compaction is not done in place");
    if (flagged && overlaps(args.flags, flag_bytes, args.output, bytes))
      throw Error(Errc::invalid_argument, "flags and output ranges overlap");
    if (overlaps(args.count_out, 4, args.output, bytes) || overlaps(args.count_out, 4, args.input, bytes) ||
        (flagged && overlaps(args.count_out, 4, args.flags, flag_bytes)))
      throw Error(Errc::invalid_argument, "the count overlaps the input, flags or output range");
    const uint64_t temp_bytes = r.plan.temp_elements * 4;
    check_view(impl, "temp", args.temp, r.plan.temp_elements, 4, "the compaction needs");
    if (overlaps(args.temp, temp_bytes, args.input, bytes) || overlaps(args.temp, temp_bytes, args.output, bytes) ||
        overlaps(args.temp, temp_bytes, args.count_out, 4) ||
        (flagged && overlaps(args.temp, temp_bytes, args.flags, flag_bytes)))
      throw Error(Errc::invalid_argument, "temp storage overlaps the input, flags, output or count");
  }
  // n == 0: empty ranges; bind the one buffer that must exist. An indexed selection without values binds
  // its indices as the (unwritten) output, as on Vulkan.
  const bool indices_only = indexed && !indexed->values;
  const bool ballot = r.path == CompactPath::ballot;
  core::CompactLowering how;
  how.count = n;
  how.value_bytes = esize;
  how.output_unit = indices_only ? 4 : esize;
  how.flagged = flagged;
  how.predicate_a = args.predicate.a;
  how.predicate_b = args.predicate.b;
  how.indices = indexed != nullptr;
  how.scan.key_of = [&](const core::Dispatch& d) {
    PipelineKey key;
    key.variant = core::compact_variant_name(d.kernel, args.config.type, ballot);
    key.workgroup_size = r.shape.workgroup_size;
    key.vectors_per_lane = r.shape.vectors_per_lane;
    if (core::is_compaction_kernel(d.kernel)) {
      key.predicate = predicate;
      if (indexed) key.outputs = (indexed->values ? 1u : 0u) | 2u;  // OUT_VALUES, OUT_INDICES
    } else {
      key.inclusive = d.inclusive;
      key.use_aux = d.write_block_sums || d.read_offsets;
    }
    return key;
  };
  const BufferView buffers[8] = {n == 0 ? args.count_out : args.input,
                                 n == 0 ? args.count_out : indices_only ? indexed->indices : args.output,
                                 n == 0 ? args.count_out : args.temp,
                                 {},
                                 {},
                                 args.flags,
                                 args.count_out,
                                 indexed ? indexed->indices : BufferView{}};  // core::PlanBuffer's order
  execute(impl, core::lower_compact_plan(r.plan, how), buffers);
}

}  // namespace

// A count in GPU memory (and its status word) must exist and stay clear of what the call writes
// (core::check_indirect_count, shared with the Vulkan backend).
void check_count_from(const Context::Impl& impl, const IndirectCount& from, std::span<const core::ByteRange> written,
                      const char* written_names) {
  check_view(impl, "count", from.buffer, from.is_64bit ? 2 : 1, 4, "the count needs");
  const bool has_status = from.status.buffer != 0;
  if (has_status) check_view(impl, "status", from.status, 1, 4, "the status word needs");
  core::check_indirect_count(byte_range(from.buffer, from.is_64bit ? 8 : 4),
                             has_status ? byte_range(from.status, 4) : core::ByteRange{}, written, written_names);
}

void record_indirect_args(const Context& ctx, const IndirectArgs& args) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const bool status = args.count.status.buffer != 0;
  const core::Program program = core::indirect_args_program(args.count.is_64bit, status, args.bound,
                                                            args.elements_per_workgroup, impl.max_groups_x);
  check_view(impl, "command", args.command, 3, 4, "the dispatch command takes");
  const core::ByteRange written[] = {byte_range(args.command, 12)};
  check_count_from(impl, args.count, written, "the dispatch command");
  const BufferView buffers[] = {args.count.buffer, args.command, args.count.status};  // core::IndirectArgsBuffer's order
  execute(impl, program, buffers);
}

core::Program scan_program(const Context& ctx, uint64_t count, const ScanConfig& config) {
  const Resolved r = resolve_scan(ctx, count, config);
  return program_of(impl_of(ctx), r, core::element_bytes(r.config),
                    [&](const core::Dispatch& d) { return scan_key(r, r.config, d); }, std::nullopt, nullptr);
}

TempRequirements scan_temp(const Context& ctx, const primitive::Scan& s, uint64_t max_count, bool indirect) {
  const Resolved r = resolve_scan(ctx, max_count, s.config, indirect, core::PlanExtent::outline);
  TempRequirements req;
  req.alignment = core::element_bytes(r.config);
  req.size = r.plan.temp_elements * req.alignment;
  return req;
}

std::string scan_describe(const Context& ctx, const primitive::Scan& s, uint64_t count) {
  const Resolved r = resolve_scan(ctx, count, s.config, false, core::PlanExtent::outline);
  std::string text = std::string(to_string(r.algorithm));
  if (r.algorithm == Algorithm::multipass) text += " (" + std::string(to_string(r.workgroup)) + " workgroup scan)";
  text += ", W = " + std::to_string(r.shape.workgroup_size);
  if (r.algorithm != Algorithm::multipass) text += ", " + std::to_string(r.shape.vectors_per_lane) + " vectors per lane";
  return text + "\n" + core::describe(r.plan);
}

void record_scan_timed(const Context& ctx, const ScanArgs& args, double* gpu_ns) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const Resolved r = resolve_scan(ctx, args.count, args.config, count_from != nullptr);
  if (args.config.custom_op && args.initial_bits)
    throw Error(Errc::unsupported, "custom operators take no carry-in (ScanArgs::initial_bits): gpuscan cannot "
                                   "convert bits into the snippet's T");
  if (args.count == 0 && !count_from) return;
  const bool in_place = args.input.buffer == args.output.buffer && args.input.offset == args.output.offset;
  const uint32_t esize = core::element_bytes(r.config);
  const uint64_t bytes = args.count * esize;
  check_view(impl, "input", args.input, args.count, esize);
  check_view(impl, "output", args.output, args.count, esize);
  if (!in_place && overlaps(args.input, bytes, args.output, bytes))
    throw Error(Errc::invalid_argument, "input and output ranges overlap without being identical; "
                                        "scan in place (output == input) or use disjoint ranges");
  const uint64_t temp_bytes = r.plan.temp_elements * esize;
  if (temp_bytes > 0) {
    check_view(impl, "temp", args.temp, r.plan.temp_elements, esize);
    if (overlaps(args.temp, temp_bytes, args.input, bytes) || overlaps(args.temp, temp_bytes, args.output, bytes))
      throw Error(Errc::invalid_argument, "temp storage overlaps the input or output range");
  }
  if (count_from) check_count_from(impl, *count_from, args.output, bytes, args.temp, temp_bytes);
  auto key_of = [&](const core::Dispatch& d) { return scan_key(r, args.config, d); };
  issue_scan_plan(impl, r, args.input, args.output, args.temp, esize, key_of, args.initial_bits, count_from, gpu_ns);
}

TempRequirements compact_temp(const Context& ctx, const primitive::Select& c, uint64_t max_count) {
  TempRequirements req;
  // The partition's plan (an inclusive scan of the counts) is sized too: one allocation serves both.
  req.size = std::max(resolve_compact(ctx, max_count, c.config, false).plan.temp_elements,
                      resolve_compact(ctx, max_count, c.config, true).plan.temp_elements) * 4;
  return req;
}

std::string compact_describe(const Context& ctx, const primitive::Select& c, uint64_t count) {
  const Resolved r = resolve_compact(ctx, count, c.config, false);
  return "compaction, " + std::string(to_string(r.path)) + " path, W = " + std::to_string(r.shape.workgroup_size) +
         ", " + std::to_string(r.shape.vectors_per_lane) + " vectors per lane, counts scanned by " +
         (r.algorithm == Algorithm::multipass ? "multipass (blelloch)" : "reduce-then-scan") + "\n" +
         core::describe(r.plan);
}

TempRequirements reduce_temp(const Context& ctx, const primitive::Reduce& r, uint64_t max_count, bool indirect) {
  TempRequirements req;
  req.alignment = element_size(r.config.type);
  req.size = resolve_reduce(ctx, max_count, r.config, indirect, core::PlanExtent::outline).plan.temp_elements *
             element_size(r.config.type);
  return req;
}

std::string reduce_describe(const Context& ctx, const primitive::Reduce& d, uint64_t count) {
  const ReduceConfig& config = d.config;
  const Resolved r = resolve_reduce(ctx, count, config, false, core::PlanExtent::outline);
  return "reduce, W = " + std::to_string(r.shape.workgroup_size) + ", " + std::to_string(r.shape.vectors_per_lane) +
         " vectors per lane" +
         (impl_of(ctx).reduce_without_subgroups(config.type) ? ", without subgroups" : ", subgroup arithmetic") + "\n" +
         core::describe(r.plan);
}

void record_reduce_timed(const Context& ctx, const ReduceArgs& args, double* gpu_ns) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const Resolved r = resolve_reduce(ctx, args.count, args.config, count_from != nullptr);
  const uint32_t esize = element_size(args.config.type);
  const uint64_t bytes = args.count * esize;
  check_view(impl, "output", args.output, 1, esize, "the reduction writes");
  if (args.count > 0) {
    check_view(impl, "input", args.input, args.count, esize, "the reduction needs");
    if (overlaps(args.input, bytes, args.output, esize))
      throw Error(Errc::invalid_argument, "the output element overlaps the input range");
  }
  const uint64_t temp_bytes = r.plan.temp_elements * esize;
  if (temp_bytes > 0) {
    check_view(impl, "temp", args.temp, r.plan.temp_elements, esize, "the reduction needs");
    if (overlaps(args.temp, temp_bytes, args.input, bytes) || overlaps(args.temp, temp_bytes, args.output, esize))
      throw Error(Errc::invalid_argument, "temp storage overlaps the input or output");
  }
  if (count_from) check_count_from(impl, *count_from, args.output, esize, args.temp, temp_bytes);
  const std::string suffix = impl.reduce_without_subgroups(args.config.type) ? ".no_subgroups" : "";
  auto key_of = [&](const core::Dispatch& d) {
    PipelineKey key;
    key.variant = core::scan_variant_name(d.kernel, args.config.type, args.config.op, WorkgroupAlgorithm::automatic) + suffix;
    key.op = core::op_constant(args.config.op);
    key.workgroup_size = r.shape.workgroup_size;
    key.vectors_per_lane = r.shape.vectors_per_lane;
    return key;
  };
  // No input (count 0): the plan's one dispatch reads nothing; bind the output in its place.
  issue_scan_plan(impl, r, args.count > 0 ? args.input : args.output, args.output, args.temp, esize, key_of,
                  std::nullopt, count_from, gpu_ns);
}

// Indices only (!how.values): the output binding is bound, unwritten, to the indices (record_compact).
void record_select_indexed(const Context& ctx, const SelectArgs& args, const IndexedSelect& how) {
  record_compact(ctx, args, false, false, &how);
}

void compact_issue(const Context& ctx, const primitive::Select& c, const SelectArgs& args) {
  record_compact(ctx, args, c.flagged, c.partition);
}

// The free calls: one plan each, made for this one call (its programs are built at the first record, then
// kept by the context).

TempRequirements scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config, bool indirect) {
  return Plan(ctx, primitive::Scan{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config) {
  return Plan(ctx, primitive::Scan{config}, core::one_call(count)).describe(count);
}

void record_scan(const Context& ctx, const ScanArgs& args) {
  const bool in_place = args.input.buffer == args.output.buffer && args.input.offset == args.output.offset;
  Plan(ctx, primitive::Scan{args.config}, core::one_call(args.count, args.count_from.has_value(), in_place))
      .record({args.count, args.input, args.output, args.temp, false, args.initial_bits, args.count_from});
}

TempRequirements reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config,
                                          bool indirect) {
  return Plan(ctx, primitive::Reduce{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_reduce_plan(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  return Plan(ctx, primitive::Reduce{config}, core::one_call(count)).describe(count);
}

void record_reduce(const Context& ctx, const ReduceArgs& args) {
  Plan(ctx, primitive::Reduce{args.config}, core::one_call(args.count, args.count_from.has_value()))
      .record({args.count, args.input, args.output, args.temp, args.count_from});
}

TempRequirements compact_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config) {
  return Plan(ctx, primitive::Select{config}, core::one_call(count)).temp_requirements();
}

std::string describe_compact_plan(const Context& ctx, uint64_t count, const CompactConfig& config) {
  return Plan(ctx, primitive::Select{config}, core::one_call(count)).describe(count);
}

namespace {

void record_with_plan(const Context& ctx, const SelectArgs& a, bool flagged, bool partition) {
  const PredicateKind kind = flagged ? PredicateKind::nonzero : a.predicate.kind;
  Plan(ctx, primitive::Select{.config = a.config, .flagged = flagged, .predicate = kind, .partition = partition},
       core::one_call(a.count)).record({a.count, a.input, a.flags, a.predicate, a.output, a.count_out, a.temp});
}

}  // namespace

void record_select_if(const Context& ctx, const SelectArgs& args) { record_with_plan(ctx, args, false, false); }
void record_select_flagged(const Context& ctx, const SelectArgs& args) { record_with_plan(ctx, args, true, false); }
void record_partition_if(const Context& ctx, const SelectArgs& args) { record_with_plan(ctx, args, false, true); }
void record_partition_flagged(const Context& ctx, const SelectArgs& args) { record_with_plan(ctx, args, true, true); }

}  // namespace gpuscan::gl
