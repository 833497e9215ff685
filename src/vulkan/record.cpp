// Scans and reductions on Vulkan: checks the caller's arguments, asks src/core for the plan and its
// program (core/plan_program.hpp), and records that with the executor (vulkan/execute.hpp). These are the
// plans' parts (vulkan/scan.hpp); the free calls are conveniences over the plans.
#include <algorithm>
#include <bit>
#include <optional>
#include <sstream>
#include <variant>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "core/plan_checks.hpp"
#include "core/plan_program.hpp"
#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "core/variant_names.hpp"
#include "core/windows.hpp"
#include "gpuscan/vulkan/reduce.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/scan.hpp"
#include "vulkan/scan_program.hpp"
#include "vulkan/indirect.hpp"

namespace gpuscan {
namespace {

struct Resolved {
  Algorithm algorithm;
  WorkgroupAlgorithm workgroup;  // multipass only
  uint32_t workgroup_size;
  uint32_t vectors_per_lane;
  core::Plan plan;
  core::IndirectRegion indirect;  // with a count in GPU memory: where its words are in temp
  uint64_t bound = 0;             // ... the count's upper bound
  uint32_t block_size = 0;        // ... and the elements per workgroup at every level of the plan
  bool min_one_block = false;     // ... a reduction runs one workgroup per level even for no elements
  ScanConfig config;              // the caller's, with a custom operator's element_size filled in
  std::string custom_prefix;      // of a custom operator's kernels ("custom3."); empty for the built-in ones
  bool device_address = false;    // the caller's buffers through device addresses (".bda" kernels)
  bool in_place = false;          // output == input (the single-pass kernel then orders its PREFIX before its stores)
};

// What is planned: a scan (config.algorithm decides how), or a reduction (always the tile kernels).
enum class Job { scan, reduce };

// `extent`: the plan to record (full), or its outline for sizing temp and describing the plan, whose cost
// does not grow with the count.
Resolved resolve_scan(const Context& ctx, uint64_t count, const ScanConfig& config, bool in_place,
                      bool vector_aligned = true, bool temp_zeroed = false, Job job = Job::scan,
                      bool indirect = false, bool device_address = false,
                      core::PlanExtent extent = core::PlanExtent::full) {
  const DeviceInfo& info = ctx.device_info();
  core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info),
                       core::element_bytes(config));
  ScanConfig resolved_config = config;
  std::string custom_prefix;
  if (config.custom_op) {  // compiled (or found) first: its element size is needed from here on
    const Context::Impl::CompiledCustomOp& custom = impl_of(ctx).custom_op(*config.custom_op);
    resolved_config.custom_op->element_size = custom.element_size;
    custom_prefix = custom.prefix;
  }
  impl_of(ctx).check_count(count, core::element_bytes(resolved_config), job == Job::reduce ? "reduction" : "scan");
  core::check_shared_memory(shape, core::element_bytes(resolved_config), info.max_shared_memory_bytes);
  Resolved r{ctx.resolve(config, count, vector_aligned), WorkgroupAlgorithm::blelloch, shape.workgroup_size,
             shape.vectors_per_lane, {}};
  const bool chained = r.algorithm == Algorithm::single_pass || r.algorithm == Algorithm::look_ahead;
  if (in_place && chained && impl_of(ctx).withhold_first_tile)
    throw Error(Errc::invalid_argument,
                "TestHooks::withhold_first_tile does not apply to single-pass or look-ahead scans in place: tile 0 "
                "would overwrite its input without publishing, so no fallback could recompute it");
  // The tile scans' default shapes depend on the type and count (core::scan_tile_shape).
  const bool tile_scan = job == Job::scan && !config.custom_op &&
                         (chained || r.algorithm == Algorithm::reduce_then_scan);
  if (tile_scan) {
    shape = impl_of(ctx).scan_shape(r.algorithm, config.workgroup_size, config.vectors_per_lane, config.type, config.kind,
                                  count);
    r.workgroup_size = shape.workgroup_size;
    r.vectors_per_lane = shape.vectors_per_lane;
  }
  r.config = std::move(resolved_config);
  r.custom_prefix = std::move(custom_prefix);
  r.in_place = in_place;
  const uint32_t esize = core::element_bytes(r.config);
  const core::PlanLimits limits{impl_of(ctx).max_groups_x, info.max_workgroup_count[1], impl_of(ctx).look_ahead_grid};
  const uint64_t window = impl_of(ctx).window_elements(esize, device_address);
  r.device_address = device_address;
  r.bound = count;
  r.block_size = shape.workgroup_size * shape.vectors_per_lane * 4;
  if (job == Job::reduce) {
    r.plan = core::plan_reduction(count, config.type, shape, limits, window, extent);
    r.min_one_block = true;
    if (indirect) r.plan = core::plan_indirect(r.plan, esize, &r.indirect);
    return r;
  }
  if (r.algorithm == Algorithm::multipass) r.block_size = 2 * shape.workgroup_size;
  if (r.algorithm == Algorithm::multipass && !config.custom_op) r.workgroup = ctx.resolve(config.workgroup, config.type);
  r.plan = core::plan_scan(r.algorithm, count, r.config, shape, limits, temp_zeroed, window, extent);
  if (tile_scan)  // temp sized for this count serves smaller ones
    r.plan.temp_elements =
        std::max(r.plan.temp_elements, core::scan_temp_elements(r.algorithm, count, r.config, *impl_of(ctx).profile,
                                                                limits, temp_zeroed, window,
                                                                core::workgroup_limits(info)));
  if (indirect) r.plan = core::plan_indirect(r.plan, esize, &r.indirect);
  return r;
}

// Whether a scan or reduction of `count` elements reaches the caller's buffers through device addresses
// (Addressing, gpuscan/vulkan.hpp). `output` is null for a reduction, whose one output element is always
// bound. Throws Errc::unsupported / missing_usage where device addresses are forced but cannot be used.
bool use_device_address(const Context& ctx, uint64_t count, const ScanConfig& config, const BufferView& input,
                        const BufferView* output) {
  const Context::Impl& impl = impl_of(ctx);
  if (impl.addressing == Addressing::bindings || count == 0) return false;
  if (impl.addressing == Addressing::device_address) {
    if (config.custom_op)
      throw Error(Errc::unsupported, "custom operators run with bindings only, not Addressing::device_address");
    vk::check_device_address("input", input);
    if (output) vk::check_device_address("output", *output);
    return true;
  }
  return impl.device_address_enabled && !config.custom_op && count > impl.window_elements(config.type) &&
         vk::has_device_address(input) && (!output || vk::has_device_address(*output));
}

// The addressings a call of `count` elements may end up with once its buffers are known, for the
// temp requirements (which must cover each) and `gpuscan info` (the first: device addresses where they
// would be used with buffers that allow them).
std::vector<bool> possible_device_address(const Context& ctx, uint64_t count, const ScanConfig& config) {
  const Context::Impl& impl = impl_of(ctx);
  if (impl.addressing == Addressing::bindings || config.custom_op || count == 0) return {false};
  if (impl.addressing == Addressing::device_address) return {true};
  if (impl.device_address_enabled && count > impl.window_elements(config.type)) return {true, false};
  return {false};
}

bool single_pass_plan(const core::Plan& plan) {
  for (const core::Step& s : plan.steps)
    if (const auto* d = std::get_if<core::Dispatch>(&s);
        d && (d->kernel == core::Kernel::single_pass || d->kernel == core::Kernel::look_ahead))
      return true;
  return false;
}

// The scan that a reduction with `config` is checked as: it runs the tile kernels of reduce-then-scan,
// so it needs what they need (and Context::resolve says so when the device lacks it).
ScanConfig as_scan(const ReduceConfig& config) {
  ScanConfig c;
  c.type = config.type;
  c.op = config.op;
  c.algorithm = Algorithm::reduce_then_scan;
  c.workgroup_size = config.workgroup_size;
  c.vectors_per_lane = config.vectors_per_lane;
  return c;
}

// The program of `r.plan` (core::PlanBuffer's buffers). `initial`: the carry-in's bits, given to the
// plan's root dispatch.
core::Program program_of(const Context& ctx, const Resolved& r, std::optional<uint64_t> initial = std::nullopt,
                         const IndirectCount* count_from = nullptr) {
  const ScanConfig& config = r.config;
  Context::Impl& impl = impl_of(ctx);
  core::ScanLowering how;
  how.element_size = core::element_bytes(config);
  how.initial = initial;
  how.device_address = r.device_address;
  how.key_of = [&](const core::Dispatch& d) {
    PipelineKey key;
    key.variant = r.custom_prefix.empty() ? core::scan_variant_name(d.kernel, config.type, config.op, r.workgroup)
                                          : r.custom_prefix + core::custom_variant_name(d.kernel);
    key.op = core::op_constant(config.op);
    // Deterministic floats: the look-back that combines in a fixed order (common/lookback_ordered.glsl).
    if (d.kernel == core::Kernel::single_pass && is_float(config.type) && config.deterministic)
      key.variant += ".ordered";
    key.workgroup_size = r.workgroup_size;
    key.inclusive = d.inclusive;
    key.use_aux = d.write_block_sums || d.read_offsets || d.kernel == core::Kernel::carry_save;
    key.vectors_per_lane = r.vectors_per_lane;
    key.spin_limit = impl.spin_limit(config.spin_limit);
    const bool chain = d.kernel == core::Kernel::single_pass || d.kernel == core::Kernel::look_ahead;
    key.withhold_first_tile = impl.withhold_first_tile && chain;
    key.late_fallback = impl.late_fallback && chain;
    if (d.kernel == core::Kernel::single_pass) key.prefix_stride = impl.prefix_stride;
    key.in_place = r.in_place && chain;
    if (d.kernel == core::Kernel::single_pass)
      key.tiles_per_workgroup = impl.tiles_per_workgroup(config.tiles_per_workgroup, d.blocks);
    return key;
  };
  if (count_from)
    how.count_from(r.indirect, r.bound, r.block_size, count_from->is_64bit, impl.max_groups_x,
                   count_from->status.buffer != VK_NULL_HANDLE, r.min_one_block);
  return core::lower_scan_plan(r.plan, how);
}

// Records the program of `r.plan` with its slots bound to `views` (input, output, temp); with `cmd`
// VK_NULL_HANDLE only builds its pipelines (prepare_plans).
void record_steps(const Context& ctx, VkCommandBuffer cmd, const Resolved& r, const BufferView* const views[3],
                  std::optional<uint64_t> initial = std::nullopt, const IndirectCount* count_from = nullptr) {
  BufferView buffers[5] = {*views[0], *views[1], *views[2], {}, {}};  // core::PlanBuffer's order
  if (count_from) {
    buffers[core::plan_count] = count_from->buffer;
    buffers[core::plan_status] = count_from->status;
  }
  vk::execute(ctx, cmd, program_of(ctx, r, initial, count_from), buffers);
}

// Throws unless `temp` holds the plan's scratch, apart from the caller's other ranges.
void check_temp(const BufferView& temp, const core::Plan& plan, uint32_t esize, const BufferView& input,
                uint64_t input_bytes, const BufferView& output, uint64_t output_bytes) {
  const uint64_t temp_bytes = plan.temp_elements * esize;
  if (temp_bytes == 0) return;
  vk::check_view("temp", temp, plan.temp_elements, esize);
  if (vk::overlaps(temp, temp_bytes, input, input_bytes) || vk::overlaps(temp, temp_bytes, output, output_bytes))
    throw Error(Errc::invalid_argument, "temp storage overlaps the input or output range");
}

// Throws unless a count in GPU memory (and its status word) can be read (written) apart from the output
// and temp, and temp can hold indirect commands.
void check_indirect_count(const IndirectCount& c, const BufferView& temp, uint64_t temp_bytes,
                          const BufferView& output, uint64_t output_bytes) {
  const core::ByteRange written[] = {vk::byte_range(output, output_bytes), vk::byte_range(temp, temp_bytes)};
  vk::check_indirect_count(c, temp, written, "the output or temp range", "a scan");
}

// Builds the pipelines of every plan `job` makes for `config` and counts up to max_count
// (core::boundary_counts), under every addressing the Context may choose for them, by walking each plan
// as a record would, over stand-in buffers at the offsets `options` describes.
void prepare_plans(const Context& ctx, uint64_t max_count, const ScanConfig& config, const PrepareOptions& options,
                   Job job) {
  // A custom operator's element size is known once it is compiled (here, if it was not yet); custom
  // operators make no vector accesses, so their records count as aligned (record_scan).
  const uint32_t esize = config.custom_op ? compile_custom_op(ctx, *config.custom_op) : element_size(config.type);
  const bool aligned = options.vector_aligned || config.custom_op;
  const BufferView data = vk::stand_in_view(aligned ? 0 : esize);
  const BufferView output = job == Job::reduce ? vk::stand_in_view() : data;
  const BufferView temp = vk::stand_in_view();
  const BufferView* const views[3] = {&data, &output, &temp};
  const IndirectCount from{vk::stand_in_view()};
  const Context::Impl& impl = impl_of(ctx);
  std::vector<uint64_t> counts = core::boundary_counts(max_count, impl.window_elements(esize));
  if (impl.device_address_enabled) {  // windows through device addresses are longer
    const std::vector<uint64_t> more = core::boundary_counts(max_count, impl.window_elements(esize, true));
    counts.insert(counts.end(), more.begin(), more.end());
  }
  const bool in_place = options.in_place && job == Job::scan;
  for (const uint64_t count : counts)
    for (const bool by_address : possible_device_address(ctx, count, config)) {
      const Resolved r = resolve_scan(ctx, count, config, in_place, aligned, false, job, options.indirect, by_address);
      record_steps(ctx, VK_NULL_HANDLE, r, views, std::nullopt, options.indirect ? &from : nullptr);
    }
}

}  // namespace

core::Program vk::scan_program(const Context& ctx, uint64_t count, const ScanConfig& config, bool in_place) {
  return program_of(ctx, resolve_scan(ctx, count, config, in_place && count > 0));
}

namespace {

TempRequirements scan_temp_of(const Context& ctx, uint64_t count, const ScanConfig& config, bool indirect) {
  // `automatic` may choose differently once record_scan sees whether the offsets allow whole
  // 4-element vectors, so the storage covers both choices.
  TempRequirements req;
  // Likewise for the addressing, which depends on the caller's buffers under Addressing::automatic.
  for (bool aligned : {true, false}) {
    if (!aligned && config.algorithm != Algorithm::automatic) break;
    for (bool by_address : possible_device_address(ctx, count, config)) {
      // In place or not, a scan takes the same storage.
      const Resolved r = resolve_scan(ctx, count, config, false, aligned, false, Job::scan, indirect, by_address,
                                      core::PlanExtent::outline);
      req.alignment = std::max<VkDeviceSize>(req.alignment, core::element_bytes(r.config));
      req.size = std::max<VkDeviceSize>(req.size, r.plan.temp_elements * core::element_bytes(r.config));
      if (indirect) req.usage |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
      if (single_pass_plan(r.plan)) {
        const TempRequirements need = vk::look_back_temp_needs(ctx);
        req.usage |= need.usage;
        req.alignment = std::max(req.alignment, need.alignment);
      }
    }
  }
  return req;
}

std::string describe_scan(const Context& ctx, uint64_t count, const ScanConfig& config) {
  const bool by_address = possible_device_address(ctx, count, config).front();
  const Resolved r =
      resolve_scan(ctx, count, config, false, true, false, Job::scan, false, by_address, core::PlanExtent::outline);
  std::string text = std::string(to_string(r.algorithm));
  if (r.algorithm == Algorithm::multipass) text += " (" + std::string(to_string(r.workgroup)) + " workgroup scan)";
  text += ", W = " + std::to_string(r.workgroup_size);
  if (r.algorithm != Algorithm::multipass) text += ", " + std::to_string(r.vectors_per_lane) + " vectors per lane";
  if (by_address) text += ", device addresses";  // bindings otherwise
  return text + "\n" + core::describe(r.plan);
}

void record_scan_args(const Context& ctx, VkCommandBuffer cmd, const ScanArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const bool in_place = args.input.buffer == args.output.buffer && args.input.offset == args.output.offset;
  // Offsets that are multiples of a 4-element vector (16 bytes, 32 for 64-bit types) stay
  // vector-aligned inside any binding (binding offsets are rounded down to a power of two). Custom
  // operators run multipass, which makes no vector accesses.
  const uint32_t vector_bytes = 4 * element_size(args.config.type);
  const bool vector_aligned = args.config.custom_op ||
                              (args.input.offset % vector_bytes == 0 && args.output.offset % vector_bytes == 0);
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const bool by_address = use_device_address(ctx, args.count, args.config, args.input, &args.output);
  const Resolved r = resolve_scan(ctx, args.count, args.config, in_place && args.count > 0, vector_aligned,
                                  args.temp_zeroed, Job::scan, count_from != nullptr, by_address);
  if (args.config.custom_op && args.initial_bits)
    throw Error(Errc::unsupported, "custom operators take no carry-in (ScanArgs::initial_bits): gpuscan cannot "
                                   "convert bits into the snippet's T");
  if (args.count == 0 && !count_from) return;

  const uint32_t esize = core::element_bytes(r.config);
  const uint64_t bytes = args.count * esize;
  vk::check_view("input", args.input, args.count, esize);
  vk::check_view("output", args.output, args.count, esize);
  if (!in_place && vk::overlaps(args.input, bytes, args.output, bytes))
    throw Error(Errc::invalid_argument, "input and output ranges overlap without being identical; "
                                        "scan in place (output == input) or use disjoint ranges");
  check_temp(args.temp, r.plan, esize, args.input, bytes, args.output, bytes);
  if (r.plan.temp_elements > 0 && single_pass_plan(r.plan))
    vk::check_temp_needs(args.temp, vk::look_back_temp_needs(ctx), "the single-pass scan");
  if (count_from) check_indirect_count(*count_from, args.temp, r.plan.temp_elements * esize, args.output, bytes);
  const BufferView* const views[3] = {&args.input, &args.output, &args.temp};
  record_steps(ctx, cmd, r, views, args.initial_bits, count_from);
}

TempRequirements reduce_temp_of(const Context& ctx, uint64_t count, const ReduceConfig& config, bool indirect) {
  const ScanConfig c = as_scan(config);
  TempRequirements req;
  req.alignment = element_size(config.type);
  for (bool by_address : possible_device_address(ctx, count, c)) {
    const Resolved r =
        resolve_scan(ctx, count, c, false, true, false, Job::reduce, indirect, by_address, core::PlanExtent::outline);
    req.size = std::max<VkDeviceSize>(req.size, r.plan.temp_elements * element_size(config.type));
  }
  if (indirect) req.usage |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  return req;
}

std::string describe_reduce(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  const bool by_address = possible_device_address(ctx, count, as_scan(config)).front();
  const Resolved r = resolve_scan(ctx, count, as_scan(config), false, true, false, Job::reduce, false, by_address,
                                  core::PlanExtent::outline);
  return "reduce, W = " + std::to_string(r.workgroup_size) + ", " + std::to_string(r.vectors_per_lane) +
         " vectors per lane" + (by_address ? ", device addresses" : "") + "\n" + core::describe(r.plan);
}

void record_reduce_args(const Context& ctx, VkCommandBuffer cmd, const ReduceArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const ScanConfig config = as_scan(args.config);
  const uint32_t esize = element_size(config.type);
  const bool vector_aligned = args.input.offset % (4 * esize) == 0;
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const bool by_address = use_device_address(ctx, args.count, config, args.input, nullptr);
  const Resolved r = resolve_scan(ctx, args.count, config, false, vector_aligned, false, Job::reduce,
                                  count_from != nullptr, by_address);
  const uint64_t bytes = args.count * esize;
  vk::check_view("output", args.output, 1, esize, "the reduction writes");
  if (args.count > 0) {
    vk::check_view("input", args.input, args.count, esize, "the reduction needs");
    if (vk::overlaps(args.input, bytes, args.output, esize))
      throw Error(Errc::invalid_argument, "the output element overlaps the input range");
  }
  check_temp(args.temp, r.plan, esize, args.input, bytes, args.output, esize);
  if (count_from) check_indirect_count(*count_from, args.temp, r.plan.temp_elements * esize, args.output, esize);
  const BufferView* const views[3] = {&args.input, &args.output, &args.temp};
  record_steps(ctx, cmd, r, views, std::nullopt, count_from);
}

}  // namespace

}  // namespace gpuscan

namespace gpuscan::vk {

namespace {
PrepareOptions options_of(const PlanLimits& l) {
  return {.in_place = l.in_place, .indirect = l.count_from_gpu, .vector_aligned = l.vector_aligned};
}
}  // namespace

TempRequirements scan_temp(const Context& ctx, const primitive::Scan& s, uint64_t max_count, bool indirect) {
  return scan_temp_of(ctx, max_count, s.config, indirect);
}
void scan_prepare(const Context& ctx, const primitive::Scan& s, const PlanLimits& limits) {
  prepare_plans(ctx, limits.max_count, s.config, options_of(limits), Job::scan);
}
std::string scan_describe(const Context& ctx, const primitive::Scan& s, uint64_t count) {
  return describe_scan(ctx, count, s.config);
}
void scan_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Scan& s, const ScanBuffers& b) {
  record_scan_args(ctx, cmd, {s.config, b.count, b.input, b.output, b.temp, b.temp_zeroed, b.initial_bits, b.count_from});
}

TempRequirements reduce_temp(const Context& ctx, const primitive::Reduce& r, uint64_t max_count, bool indirect) {
  return reduce_temp_of(ctx, max_count, r.config, indirect);
}
void reduce_prepare(const Context& ctx, const primitive::Reduce& r, const PlanLimits& limits) {
  prepare_plans(ctx, limits.max_count, as_scan(r.config), options_of(limits), Job::reduce);
}
std::string reduce_describe(const Context& ctx, const primitive::Reduce& r, uint64_t count) {
  return describe_reduce(ctx, count, r.config);
}
void reduce_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Reduce& r, const ReduceBuffers& b) {
  record_reduce_args(ctx, cmd, {r.config, b.count, b.input, b.output, b.temp, b.count_from});
}

}  // namespace gpuscan::vk

namespace gpuscan {

// The free calls: one plan each, made for this one call (its pipelines are built at the first record, then
// kept by the context).

TempRequirements scan_temp_requirements(const Context& ctx, uint64_t count, const ScanConfig& config, bool indirect) {
  return Plan(ctx, primitive::Scan{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_scan_plan(const Context& ctx, uint64_t count, const ScanConfig& config) {
  return Plan(ctx, primitive::Scan{config}, core::one_call(count)).describe(count);
}

void prepare_scan(const Context& ctx, uint64_t max_count, const ScanConfig& config, const PrepareOptions& options) {
  Plan(ctx, primitive::Scan{config},
       {.max_count = max_count, .count_from_gpu = options.indirect, .in_place = options.in_place,
        .vector_aligned = options.vector_aligned});
}

void record_scan(const Context& ctx, VkCommandBuffer cmd, const ScanArgs& args) {
  const bool in_place = args.input.buffer == args.output.buffer && args.input.offset == args.output.offset;
  Plan(ctx, primitive::Scan{args.config}, core::one_call(args.count, args.count_from.has_value(), in_place))
      .record(cmd, {args.count, args.input, args.output, args.temp, args.temp_zeroed, args.initial_bits, args.count_from});
}

TempRequirements reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config,
                                          bool indirect) {
  return Plan(ctx, primitive::Reduce{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_reduce_plan(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  return Plan(ctx, primitive::Reduce{config}, core::one_call(count)).describe(count);
}

void prepare_reduce(const Context& ctx, uint64_t max_count, const ReduceConfig& config,
                    const PrepareOptions& options) {
  Plan(ctx, primitive::Reduce{config},
       {.max_count = max_count, .count_from_gpu = options.indirect, .vector_aligned = options.vector_aligned});
}

void record_reduce(const Context& ctx, VkCommandBuffer cmd, const ReduceArgs& args) {
  Plan(ctx, primitive::Reduce{args.config}, core::one_call(args.count, args.count_from.has_value()))
      .record(cmd, {args.count, args.input, args.output, args.temp, args.count_from});
}

}  // namespace gpuscan
