// Run-length encoding on Vulkan (include/gpuscan/vulkan/run_length.hpp): a compaction that also writes
// the input indices of what it keeps (vk::record_select_indexed: the first element of every run, or the
// two ends of every non-trivial run), then run_lengths.comp, which turns the indices into lengths.
// The temp layout, the checks and the lengths pass's grid are core's (core/run_length_plan.hpp). This is
// Plan<primitive::RunLength>'s part (vulkan/run_length.hpp); the free calls are conveniences over that plan.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/plan_checks.hpp"
#include "core/run_length_plan.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/run_length.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/compact_indexed.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/indirect.hpp"
#include "vulkan/run_length.hpp"

namespace gpuscan {
namespace {

struct Layout : core::RunLengthLayout {
  TempRequirements compact;  // the compaction's own
};

Layout layout_for(const Context& ctx, uint64_t count, const CompactConfig& config) {
  core::check_run_length_count(count);
  Layout l;
  l.compact = compact_temp_requirements(ctx, count, config);  // checks the config and the device
  static_cast<core::RunLengthLayout&>(l) = core::run_length_layout(count, l.compact.size);
  return l;
}

// Checks the caller's views for `n` elements: room, and no output overlapping the input, another
// output or temp.
void check_views(const RunLengthArgs& a, const Layout& l, bool edges) {
  core::check_run_length_views(
      a, l.bytes, edges,
      [](const char* what, const BufferView& v, uint64_t count, uint32_t esize, const char* need) {
        vk::check_view(what, v, count, esize, need);
      },
      vk::byte_range);
  if (a.count > 0) vk::check_temp_needs(a.temp, l.compact, "run-length encoding");
}

void record_runs(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& a, bool edges,
                 bool check = true) {
  const Layout l = layout_for(ctx, a.count, a.config);
  if (check) check_views(a, l, edges);
  const uint64_t n = a.count;
  // The compaction: encode keeps the first of each run (values and indices), non-trivial runs the two
  // ends of each (indices only, counted in temp's word).
  SelectArgs select;
  select.config = a.config;
  select.count = n;
  select.input = a.input;
  select.output = a.values;
  select.count_out = edges ? vk::sub_view(a.temp, l.word) : a.count_out;
  select.temp = a.temp;
  select.temp_zeroed = a.temp_zeroed;
  vk::IndexedSelect how;
  how.predicate = edges ? core::predicate_run_edge : core::predicate_run_start;
  how.values = !edges;
  const bool own_offsets = !edges && a.offsets.buffer != VK_NULL_HANDLE;
  how.indices = own_offsets ? a.offsets : vk::sub_view(a.temp, l.indices);
  vk::record_select_indexed(ctx, cmd, select, how);
  // The lengths pass turns the indices into lengths.
  const uint32_t w = core::tile_shape(0, 1, core::workgroup_limits(ctx.device_info())).workgroup_size;
  const BufferView buffers[] = {how.indices, a.temp, a.count_out, a.lengths, a.offsets};  // core::RunBuffer's order
  vk::execute(ctx, cmd, core::run_length_program(n, edges, l, w), buffers);
}

}  // namespace

}  // namespace gpuscan

namespace gpuscan::vk {

TempRequirements run_length_temp(const Context& ctx, const primitive::RunLength& r, uint64_t max_count) {
  const Layout l = layout_for(ctx, max_count, r.config);
  TempRequirements req = l.compact;
  req.size = l.bytes;
  return req;
}

void run_length_prepare(const Context& ctx, const primitive::RunLength& r, uint64_t max_count) {
  prepare_compact(ctx, max_count, r.config, {.predicate = PredicateKind::run_start});
  // The indexed kernels and the lengths pass: record with no command buffer, over stand-in buffers, at
  // the largest count (the shapes of smaller counts differ only where prepare_compact covers them).
  RunLengthArgs a;
  a.config = r.config;
  a.count = std::max<uint64_t>(max_count, 2);
  a.input = a.values = a.lengths = a.offsets = a.count_out = a.temp = vk::stand_in_view();
  for (const bool edges : {false, true}) record_runs(ctx, VK_NULL_HANDLE, a, edges, false);
}

void run_length_record(const Context& ctx, VkCommandBuffer cmd, const primitive::RunLength& r,
                       const RunLengthBuffers& b) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  record_runs(ctx, cmd, {r.config, b.count, b.input, b.values, b.lengths, b.offsets, b.count_out, b.temp, b.temp_zeroed},
              r.non_trivial);
}

}  // namespace gpuscan::vk

namespace gpuscan {

// The free calls: one plan each, made for this one call.

TempRequirements run_length_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config) {
  return Plan(ctx, primitive::RunLength{config}, core::one_call(count)).temp_requirements();
}

void prepare_run_length(const Context& ctx, uint64_t max_count, const CompactConfig& config) {
  Plan(ctx, primitive::RunLength{config}, {.max_count = max_count});  // builds the kernels of both forms
}

namespace {

void record_with_plan(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& a, bool non_trivial) {
  Plan(ctx, primitive::RunLength{a.config, non_trivial}, core::one_call(a.count))
      .record(cmd, {a.count, a.input, a.values, a.lengths, a.offsets, a.count_out, a.temp, a.temp_zeroed});
}

}  // namespace

void record_run_length_encode(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& args) {
  record_with_plan(ctx, cmd, args, false);
}

void record_non_trivial_runs(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& args) {
  record_with_plan(ctx, cmd, args, true);
}

namespace {

// A one-shot plan on host data (gpuscan/vulkan/plan.hpp).
template <class T>
primitive::RunLength::Output run_on_host(const Context& ctx, std::span<const T> values, CompactConfig config,
                                         bool non_trivial) {
  config.type = data_type_of<T>::value;
  return Plan(ctx, primitive::RunLength{config, non_trivial}, core::one_call(values.size()))
      .run({.values = std::as_bytes(values)});
}

}  // namespace

template <Element T>
RunLengthResult<T> run_length_encode(const Context& ctx, std::span<const T> values, CompactConfig config) {
  primitive::RunLength::Output r = run_on_host(ctx, values, config, false);
  return {gpuscan::detail::from_bytes<T>(r.values), std::move(r.lengths)};
}

template <Element T>
NonTrivialRuns non_trivial_runs(const Context& ctx, std::span<const T> values, CompactConfig config) {
  primitive::RunLength::Output r = run_on_host(ctx, values, config, true);
  return {std::move(r.offsets), std::move(r.lengths)};
}

#define GPUSCAN_RLE_INSTANTIATE(T)                                                                      \
  template RunLengthResult<T> run_length_encode(const Context&, std::span<const T>, CompactConfig);    \
  template NonTrivialRuns non_trivial_runs(const Context&, std::span<const T>, CompactConfig);
GPUSCAN_RLE_INSTANTIATE(uint32_t)
GPUSCAN_RLE_INSTANTIATE(int32_t)
GPUSCAN_RLE_INSTANTIATE(float)
GPUSCAN_RLE_INSTANTIATE(uint64_t)
GPUSCAN_RLE_INSTANTIATE(int64_t)
GPUSCAN_RLE_INSTANTIATE(double)
#undef GPUSCAN_RLE_INSTANTIATE

}  // namespace gpuscan
