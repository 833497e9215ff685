// Run-length encoding on OpenGL (gpuscan/gl.hpp), as src/vulkan/run_length.cpp: the compaction that also
// writes the input indices of what it keeps (record_select_indexed: the first element of every run, or the
// two ends of every non-trivial run), then run_lengths.comp, which turns the indices into lengths. The
// temp layout, the checks and the lengths pass are core's (core/run_length_plan.hpp). This is
// gl::Plan<primitive::RunLength>'s part (gl/run_length.hpp); the free calls are conveniences over that plan.
#include <cstring>
#include <string>

#include "core/plan_checks.hpp"
#include "core/run_length_plan.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/gl/plan.hpp"
#include "gl/buffers.hpp"
#include "gl/compact_indexed.hpp"
#include "gl/context_impl.hpp"
#include "gl/execute.hpp"
#include "gl/run_length.hpp"

namespace gpuscan::gl {
namespace {

core::RunLengthLayout layout_for(const Context& ctx, uint64_t count, const CompactConfig& config) {
  core::check_run_length_count(count);
  impl_of(ctx).check_type(config.type);  // the 64-bit types where GL has them, as its compaction
  return core::run_length_layout(count, compact_temp_requirements(ctx, count, config).size);  // checks the config
}

BufferView sub_view(const BufferView& v, uint64_t bytes) { return {v.buffer, v.offset + bytes}; }

void record_runs(const Context& ctx, const RunLengthArgs& a, bool edges) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const core::RunLengthLayout l = layout_for(ctx, a.count, a.config);
  core::check_run_length_views(
      a, l.bytes, edges,
      [&impl](const char* what, const BufferView& v, uint64_t count, uint32_t esize, const char* need) {
        check_view(impl, what, v, count, esize, need);
      },
      [](const BufferView& v, uint64_t bytes) { return core::ByteRange{v.buffer, v.offset, bytes}; });
  const uint64_t n = a.count;
  const core::Program lengths =
      core::run_length_program(n, edges, l, core::tile_shape(0, 1, core::workgroup_limits(ctx.info())).workgroup_size);
  build_programs(impl, lengths);  // before anything is dispatched
  // The compaction: encode keeps the first of each run (values and indices), non-trivial runs the two
  // ends of each (indices only, counted in temp's word).
  SelectArgs select;
  select.config = a.config;
  select.count = n;
  select.input = a.input;
  select.output = a.values;
  select.count_out = edges ? sub_view(a.temp, l.word) : a.count_out;
  select.temp = a.temp;
  IndexedSelect how;
  how.predicate = edges ? core::predicate_run_edge : core::predicate_run_start;
  how.values = !edges;
  how.indices = !edges && a.offsets.buffer != 0 ? a.offsets : sub_view(a.temp, l.indices);
  record_select_indexed(ctx, select, how);
  const BufferView buffers[] = {how.indices, a.temp, a.count_out, a.lengths, a.offsets};  // core::RunBuffer's order
  execute(impl, lengths, buffers);
}

// A one-shot plan on host data (gpuscan/gl/plan.hpp).
template <class T>
primitive::RunLength::Output run_on_host(const Context& ctx, std::span<const T> values, CompactConfig config,
                                         bool non_trivial) {
  config.type = data_type_of<T>::value;
  impl_of(ctx).check_current();
  return Plan(ctx, primitive::RunLength{config, non_trivial}, core::one_call(values.size()))
      .run({.values = std::as_bytes(values)});
}

}  // namespace

TempRequirements run_length_temp(const Context& ctx, const primitive::RunLength& r, uint64_t max_count) {
  TempRequirements req;
  req.size = layout_for(ctx, max_count, r.config).bytes;
  return req;
}

void run_length_issue(const Context& ctx, const primitive::RunLength& r, const RunLengthBuffers& b) {
  record_runs(ctx, {r.config, b.count, b.input, b.values, b.lengths, b.offsets, b.count_out, b.temp}, r.non_trivial);
}

// The free calls: one plan each, made for this one call.

TempRequirements run_length_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config) {
  return Plan(ctx, primitive::RunLength{config}, core::one_call(count)).temp_requirements();
}

namespace {

void record_with_plan(const Context& ctx, const RunLengthArgs& a, bool non_trivial) {
  Plan(ctx, primitive::RunLength{a.config, non_trivial}, core::one_call(a.count))
      .record({a.count, a.input, a.values, a.lengths, a.offsets, a.count_out, a.temp});
}

}  // namespace

void record_run_length_encode(const Context& ctx, const RunLengthArgs& args) { record_with_plan(ctx, args, false); }
void record_non_trivial_runs(const Context& ctx, const RunLengthArgs& args) { record_with_plan(ctx, args, true); }

template <GlElement T>
RunLengthResult<T> run_length_encode(const Context& ctx, std::span<const T> values, CompactConfig config) {
  primitive::RunLength::Output r = run_on_host(ctx, values, config, false);
  return {gpuscan::detail::from_bytes<T>(r.values), std::move(r.lengths)};
}

template <GlElement T>
NonTrivialRuns non_trivial_runs(const Context& ctx, std::span<const T> values, CompactConfig config) {
  primitive::RunLength::Output r = run_on_host(ctx, values, config, true);
  return {std::move(r.offsets), std::move(r.lengths)};
}

#define GPUSCAN_GL_RLE(T)                                                                                \
  template RunLengthResult<T> run_length_encode(const Context&, std::span<const T>, CompactConfig); \
  template NonTrivialRuns non_trivial_runs(const Context&, std::span<const T>, CompactConfig);
GPUSCAN_GL_RLE(uint32_t)
GPUSCAN_GL_RLE(int32_t)
GPUSCAN_GL_RLE(float)
GPUSCAN_GL_RLE(uint64_t)
GPUSCAN_GL_RLE(int64_t)
GPUSCAN_GL_RLE(double)
#undef GPUSCAN_GL_RLE

}  // namespace gpuscan::gl
