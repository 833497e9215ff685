// The OpenGL histogram: gl::Plan<primitive::Histogram>'s part (gl/histogram.hpp: the checks of the caller's
// buffers, then the program Vulkan records, core::histogram_program, issued by GL's executor), and the free
// calls of gpuscan/gl.hpp over that plan.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/histogram_plan.hpp"
#include "core/plan_checks.hpp"
#include "core/windows.hpp"
#include "gpuscan/gl/plan.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/execute.hpp"
#include "gl/histogram.hpp"

namespace gpuscan::gl {
namespace {

core::ByteRange byte_range(const BufferView& v, uint64_t bytes) { return {v.buffer, v.offset, bytes}; }

// The program of `config` (built here), or the refusal of what GL lacks.
PipelineKey key_of(const Context& ctx, const HistogramConfig& config) {
  core::histogram_count_bytes(config.counts);
  impl_of(ctx).reduce_without_subgroups(config.type);  // refuses the sample types GL lacks
  return core::histogram_key(config, ctx.info().max_workgroup_invocations);
}

core::HistogramPlan plan(const Context& ctx, const HistogramBins& bins, const HistogramConfig& config, uint64_t count,
                         const IndirectCount* count_from) {
  core::HistogramPlan p = core::plan_histogram(bins, config, count, count_from != nullptr, count_from && count_from->is_64bit,
                              count_from && count_from->status.buffer != 0, impl_of(ctx).max_binding_bytes,
                              "GL_MAX_SHADER_STORAGE_BLOCK_SIZE");
  p.max_samples_per_invocation = impl_of(ctx).profile->histogram.max_samples_per_invocation;
  return p;
}

}  // namespace

TempRequirements histogram_temp(const Context& ctx, const primitive::Histogram& h) {
  TempRequirements req;
  req.size = plan(ctx, h.bins, h.config, 0, nullptr).temp_bytes();
  req.alignment = 4;
  return req;
}

void histogram_issue(const Context& ctx, const primitive::Histogram& h, const HistogramBuffers& args) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const HistogramConfig& config = h.config;
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const core::HistogramPlan p = plan(ctx, h.bins, config, args.count, count_from);
  const PipelineKey key = key_of(ctx, config);
  const uint32_t sbytes = p.table.element_bytes;
  const uint64_t table_bytes = p.table_bytes();

  check_view(impl, "counts", args.counts, p.num_bins, p.count_bytes, "the histogram has bins:");
  if (table_bytes > 0) check_view(impl, "temp", args.temp, p.table.edges(), sbytes, "the edge table needs");
  if (args.count > 0) check_view(impl, "input", args.input, args.count, sbytes, "the histogram needs");
  if (count_from) {
    check_view(impl, "count_from.buffer", count_from->buffer, count_from->is_64bit ? 2 : 1, 4, "the count takes");
    if (p.status) check_view(impl, "count_from.status", count_from->status, 1, 4, "the status takes");
  }
  core::check_histogram_overlaps({byte_range(args.input, p.sample_bytes(args.count)),
                                  byte_range(args.counts, p.counts_bytes()), byte_range(args.temp, table_bytes),
                                  count_from ? byte_range(count_from->buffer, 8) : core::ByteRange{},
                                  p.status ? byte_range(count_from->status, 4) : core::ByteRange{}});
  const BufferView buffers[] = {args.input, args.counts, args.temp, count_from ? count_from->buffer : BufferView{},
                                count_from ? count_from->status : BufferView{}};  // core::HistogramBuffer's order
  const uint64_t window = core::window_elements(impl.max_binding_bytes, impl.binding_alignment(sbytes), sbytes);
  execute(impl,
          core::histogram_program(p, key, config.accumulate, args.count, count_from ? (count_from->is_64bit ? 2 : 1) : 0,
                                  window, impl.max_groups_x),
          buffers);
}

// The free calls: one plan each, made for this one call (its program is built at the first record, then
// kept by the context).

TempRequirements histogram_temp_requirements(const Context& ctx, const HistogramBins& bins,
                                             const HistogramConfig& config) {
  return Plan(ctx, primitive::Histogram{config, bins}, core::one_call(0)).temp_requirements();
}

void record_histogram(const Context& ctx, const HistogramArgs& args) {
  Plan(ctx, primitive::Histogram{args.config, args.bins}, core::one_call(args.count, args.count_from.has_value()))
      .record({args.count, args.input, args.counts, args.temp, args.count_from});
}

std::vector<uint64_t> histogram_bytes(const Context& ctx, std::span<const std::byte> input, const HistogramBins& bins,
                                      const HistogramConfig& config) {
  impl_of(ctx).check_current();
  HistogramConfig fresh = config;
  fresh.accumulate = false;  // the counts start at zero on the host
  return Plan(ctx, primitive::Histogram{fresh, bins},
              core::one_call(core::histogram_sample_count(input.size(), config.type))).run({.samples = input});
}

}  // namespace gpuscan::gl
