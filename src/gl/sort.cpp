// The OpenGL LSD radix sort (gpuscan/gl.hpp): the multipass program of core::sort_program, which Vulkan
// records too, issued by GL's executor -- per pass each tile's digit counts (shaders/sort_upsweep.comp),
// their exclusive scan in digit-major order (GL's scan program), and the stable scatter
// (shaders/sort_downsweep.comp, its .no_subgroups build where GL has no subgroup ballots). Temp as
// core/sort_plan.hpp lays it out. This is gl::Plan<primitive::Sort>'s part (gl/sort.hpp); the free calls
// are conveniences over that plan.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/sort_plan.hpp"
#include "core/windows.hpp"
#include "gpuscan/gl/plan.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/execute.hpp"
#include "gl/scan_program.hpp"
#include "gl/record.hpp"
#include "gl/sort.hpp"

namespace gpuscan::gl {
namespace {


// The ranking: ballots where GL_KHR_shader_subgroup offers them, else the 1-bit splits.
bool ballot_ranking(const Context& ctx) { return ctx.info().subgroup_ballot && ctx.info().subgroup_size != 0; }

core::SortShape shape_for(const Context& ctx, const SortConfig& config) {
  const GlInfo& info = ctx.info();
  const core::WorkgroupLimits limits = core::workgroup_limits(info);
  return core::sort_shape({ballot_ranking(ctx) ? info.subgroup_size : 0u, core::min_workgroup_size(limits),
                           info.max_workgroup_invocations, info.max_shared_memory_bytes},
                          config);
}

// GL's automatic scan never picks the single-pass scan, so no workgroup waits for another.
ScanConfig counts_scan_config() {
  ScanConfig c;
  c.type = DataType::u32;
  c.kind = ScanKind::exclusive;
  return c;
}

// `count`: the keys, or with `indirect` (a count from GPU memory) their upper bound.
core::SortLayout layout_for(const Context& ctx, uint64_t count, const SortConfig& config, bool indirect) {
  core::SortLayout l;
  l.bits = core::sort_bit_range(config);
  l.passes = core::sort_pass_count(l.bits);
  l.shape = shape_for(ctx, config);
  if (config.algorithm == SortAlgorithm::onesweep)
    throw Error(Errc::unsupported, "the Onesweep sort is not offered on OpenGL: its look-back needs 64-bit buffer "
                                   "atomics, which the GL backend does not use; use SortAlgorithm::multipass (or "
                                   "automatic)");
  const Context::Impl& impl = impl_of(ctx);
  const uint32_t kbytes = element_size(config.key_type), vbytes = config.value_bytes;
  auto fit = [&](uint32_t esize) {
    return core::window_elements(impl.max_binding_bytes, impl.binding_alignment(esize), esize);
  };
  core::check_sort_count(count, std::min(fit(kbytes), vbytes ? fit(vbytes) : UINT64_MAX), kbytes, vbytes,
                         "GL_MAX_SHADER_STORAGE_BLOCK_SIZE");
  core::size_sort_counts(l, count);
  const uint64_t scan_bytes = count > 0 ? scan_temp_requirements(ctx, l.counts, counts_scan_config()).size : 0;
  core::place_sort_arrays(l, count, kbytes, vbytes, scan_bytes, indirect);
  return l;
}

// What both record calls hand to issue_passes (values_in empty without values; `indices`: argsort).
struct Buffers {
  BufferView keys_in, keys_out, values_in, values_out, temp;
  bool indices = false;
};

// Issues the sort's program (core::sort_program); with `count_from`, `count` is its upper bound.
void issue_passes(const Context& ctx, const core::SortLayout& l, const SortConfig& config, uint64_t count,
                  const Buffers& b, const IndirectCount* count_from) {
  Context::Impl& impl = impl_of(ctx);
  core::SortRequest q;
  q.config = config;
  q.count = count;
  q.indices = b.indices;
  q.count_from = count_from != nullptr;
  q.count_64bit = count_from && count_from->is_64bit;
  q.count_status = count_from && count_from->status.buffer != 0;
  q.counts_scan = [&ctx](uint64_t n) { return scan_program(ctx, n, counts_scan_config()); };
  // sort_upsweep uses no subgroup operation: one build serves both rankings.
  q.downsweep_suffix = l.shape.subgroups ? "" : ".no_subgroups";
  q.limits = {impl.max_groups_x, ctx.info().max_workgroup_count[1]};
  const BufferView buffers[] = {b.keys_in,  b.keys_out, b.values_in.buffer ? b.values_in : b.keys_in,
                                b.values_out.buffer ? b.values_out : b.keys_out, b.temp,
                                count_from ? count_from->buffer : BufferView{},
                                count_from ? count_from->status : BufferView{}};  // core::SortBuffer's order
  execute(impl, core::sort_program(l, q), buffers);
}

// The checks both record calls share; `values`: the values' ranges take part. A count_from bound of 0
// reaches only temp (its count's words) and the count.
void check_buffers(const Context::Impl& impl, const core::SortLayout& l, const SortConfig& config, uint64_t count,
                   const Buffers& b, bool values, const IndirectCount* count_from) {
  const uint32_t kbytes = element_size(config.key_type), vbytes = config.value_bytes;
  const char* need = "the sort needs";
  if (count > 0) {
    check_view(impl, "keys_in", b.keys_in, count, kbytes, need);
    check_view(impl, "keys_out", b.keys_out, count, kbytes, need);
  }
  check_view(impl, "temp", b.temp, l.bytes / 4, 4, "the sort needs (bytes / 4)");
  if (b.temp.offset % 8 != 0)
    throw Error(Errc::misaligned, "temp starts at byte " + std::to_string(b.temp.offset) +
                                      ", not a multiple of 8 (sort_temp_requirements' alignment)");
  auto range = [](const BufferView& v, uint64_t bytes) { return core::ByteRange{v.buffer, v.offset, bytes}; };
  if (count_from) {
    const core::ByteRange written[] = {range(b.keys_out, count * kbytes), range(b.temp, l.bytes),
                                       range(b.values_out, values ? count * vbytes : 0)};
    check_count_from(impl, *count_from, written, "keys_out, values_out or temp");
  }
  if (count == 0) return;
  std::vector<core::NamedRange> ranges = {{"keys_in", range(b.keys_in, count * kbytes)},
                                          {"keys_out", range(b.keys_out, count * kbytes)},
                                          {"temp", range(b.temp, l.bytes)}};
  if (values) {
    check_view(impl, "values_out", b.values_out, count, vbytes, need);
    ranges.push_back({"values_out", range(b.values_out, count * vbytes)});
    if (!b.indices) {
      check_view(impl, "values_in", b.values_in, count, vbytes, need);
      ranges.push_back({"values_in", range(b.values_in, count * vbytes)});
    }
  }
  core::check_sort_overlaps(ranges);
}

void record(const Context& ctx, const SortConfig& config, uint64_t count, const Buffers& b, bool pairs,
            const std::optional<IndirectCount>& count_from) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  core::check_sort_values(config, pairs);
  if (b.indices && config.value_bytes != 4)
    throw Error(Errc::invalid_argument, "values_are_indices makes u32 positions: SortConfig::value_bytes must be 4");
  const core::SortLayout l = layout_for(ctx, count, config, count_from.has_value());
  if (count == 0 && !count_from) return;
  const IndirectCount* from = count_from ? &*count_from : nullptr;
  check_buffers(impl, l, config, count, b, pairs, from);
  // (No key to sort with a count in GPU memory: the program writes the status word alone.)
  issue_passes(ctx, l, config, count, b, from);
}

}  // namespace

TempRequirements sort_temp(const Context& ctx, const primitive::Sort& s, uint64_t max_count, bool indirect) {
  core::check_sort_values(s.config, s.config.value_bytes != 0);
  TempRequirements req;
  req.size = layout_for(ctx, max_count, s.config, indirect).bytes;
  req.alignment = 8;  // 8-byte keys and values in temp (the count scan's u32 temp sits at a multiple of 64)
  return req;
}

std::string sort_describe(const Context& ctx, const primitive::Sort& s, uint64_t count) {
  const core::SortLayout l = layout_for(ctx, count, s.config, false);
  std::string text = "multipass, " + std::to_string(l.passes) + (l.passes == 1 ? " pass" : " passes") +
                     ", W = " + std::to_string(l.shape.workgroup_size) + ", K = " +
                     std::to_string(l.shape.keys_per_lane) + ", ranking by " +
                     (l.shape.subgroups ? "subgroup ballots" : "1-bit splits (no subgroups)");
  if (l.counts > 0) text += "\ncount scan: " + describe_scan_plan(ctx, l.counts, counts_scan_config());
  return text;
}

void sort_issue(const Context& ctx, const primitive::Sort& s, const SortBuffers& b) {
  record(ctx, s.config, b.count, {b.keys_in, b.keys_out, b.values_in, b.values_out, b.temp, b.values_are_indices},
         s.config.value_bytes != 0, b.count_from);
}

// The free calls: one plan each, made for this one call. record_sort and record_sort_pairs first check that
// the config's value_bytes says the same as the call.

TempRequirements sort_temp_requirements(const Context& ctx, uint64_t count, const SortConfig& config, bool indirect) {
  return Plan(ctx, primitive::Sort{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_sort_plan(const Context& ctx, uint64_t count, const SortConfig& config) {
  return Plan(ctx, primitive::Sort{config}, core::one_call(count)).describe(count);
}

void record_sort(const Context& ctx, const SortArgs& args) {
  core::check_sort_values(args.config, false);
  Plan(ctx, primitive::Sort{args.config}, core::one_call(args.count, args.count_from.has_value()))
      .record({args.count, args.keys_in, args.keys_out, {}, {}, args.temp, false, args.count_from});
}

void record_sort_pairs(const Context& ctx, const SortPairsArgs& args) {
  core::check_sort_values(args.config, true);
  Plan(ctx, primitive::Sort{args.config}, core::one_call(args.count, args.count_from.has_value()))
      .record({args.count, args.keys_in, args.keys_out, args.values_in, args.values_out, args.temp,
               args.values_are_indices, args.count_from});
}

SortedBytes sort_bytes(const Context& ctx, std::span<const std::byte> keys, std::span<const std::byte> values,
                       const SortConfig& config, bool indices) {
  impl_of(ctx).check_current();
  const uint64_t n = core::check_sort_bytes(keys.size(), values.size(), config, indices);
  return Plan(ctx, primitive::Sort{config}, core::one_call(n))
      .run({.keys = keys, .values = values, .indices = indices});
}

}  // namespace gpuscan::gl
