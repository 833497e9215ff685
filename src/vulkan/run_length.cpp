// Run-length encoding on Vulkan (include/gpuscan/vulkan/run_length.hpp): a compaction that also writes
// the input indices of what it keeps (vk::record_select_indexed: the first element of every run, or the
// two ends of every non-trivial run), then run_lengths.comp, which turns the indices into lengths.
//
// Temp: [the compaction's temp, from byte 0 (its look-back state must start there)][count u32 indices,
// at a multiple of 64 bytes][one word: the non-trivial runs' edge count]. Encode writes the indices to
// the caller's offsets where given, so that part of temp then goes unused.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/scan_shape.hpp"
#include "gpuscan/vulkan/run_length.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/compact_indexed.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan {
namespace {

constexpr uint64_t array_alignment = 64;
// The lengths pass strides over the runs with at most this many workgroups.
constexpr uint64_t max_length_groups = 1024;

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

struct Layout {
  TempRequirements compact;  // the compaction's own
  uint64_t indices = 0;      // byte offsets in temp
  uint64_t word = 0;
  uint64_t bytes = 0;        // all of temp
};

Layout layout_for(const Context& ctx, uint64_t count, const CompactConfig& config) {
  if (count > UINT32_MAX)
    throw Error(Errc::too_large, "run-length encoding writes u32 indices and lengths: at most 2^32 - 1 elements, not " +
                                     std::to_string(count));
  Layout l;
  l.compact = compact_temp_requirements(ctx, count, config);  // checks the config and the device
  l.indices = round_up(l.compact.size, array_alignment);
  l.word = round_up(l.indices + count * 4, array_alignment);
  l.bytes = l.word + 4;
  return l;
}

// The lengths pass: `found` the compaction's indices, `kept` its count; `edges` for non-trivial runs.
void record_lengths(const Context& ctx, VkCommandBuffer cmd, bool edges, uint64_t n, const vk::Binding& found,
                    const vk::Binding& kept, const vk::Binding& lengths, const vk::Binding& offsets,
                    const vk::Binding& runs) {
  Context::Impl& impl = impl_of(ctx);
  const uint32_t w = core::tile_shape(0, 1, core::workgroup_limits(ctx.device_info())).workgroup_size;
  const uint64_t groups = std::clamp<uint64_t>((n + w - 1) / w, 1, max_length_groups);
  PipelineKey key;
  key.variant = edges ? "run_lengths.edges" : "run_lengths.starts";
  key.workgroup_size = w;
  const VkDescriptorBufferInfo infos[5] = {found.info, lengths.info, offsets.info, kept.info, runs.info};
  const uint32_t params[6] = {static_cast<uint32_t>(n), found.element_offset, lengths.element_offset,
                              offsets.element_offset, kept.element_offset, runs.element_offset};
  impl.record_dispatch(cmd, key, infos, params, static_cast<uint32_t>(groups), 1);
}

// Checks the caller's views for `n` elements: room, and no output overlapping the input, another
// output or temp.
void check_views(const RunLengthArgs& a, const Layout& l, bool edges) {
  const uint64_t n = a.count;
  const uint32_t esize = element_size(a.config.type);
  const char* need = "run-length encoding needs";
  vk::check_view("runs", a.runs_out, 1, 4, need);
  if (n == 0) return;
  const uint64_t runs_room = edges ? n / 2 : n;
  vk::check_view("input", a.input, n, esize, need);
  if (!edges) vk::check_view("values", a.values, n, esize, "run-length encoding needs room for the worst case (every element a run):");
  if (runs_room > 0) {
    vk::check_view("lengths", a.lengths, runs_room, 4, "run-length encoding needs room for the worst case:");
    if (edges || a.offsets.buffer != VK_NULL_HANDLE)
      vk::check_view("offsets", a.offsets, runs_room, 4, "run-length encoding needs room for the worst case:");
  }
  vk::check_view("temp", a.temp, l.bytes / 4, 4, need);
  vk::check_temp_needs(a.temp, l.compact, "run-length encoding");
  struct Range {
    const char* name;
    const BufferView* view;
    uint64_t bytes;
  };
  const Range ranges[] = {{"input", &a.input, n * esize},
                          {"values", &a.values, edges ? 0 : n * esize},
                          {"lengths", &a.lengths, runs_room * 4},
                          {"offsets", &a.offsets, a.offsets.buffer != VK_NULL_HANDLE ? runs_room * 4 : 0},
                          {"runs", &a.runs_out, 4},
                          {"temp", &a.temp, l.bytes}};
  for (size_t i = 1; i < std::size(ranges); ++i)  // every output against everything before it
    for (size_t j = 0; j < i; ++j) {
      if (ranges[i].bytes == 0 || ranges[j].bytes == 0) continue;
      if (vk::overlaps(*ranges[i].view, ranges[i].bytes, *ranges[j].view, ranges[j].bytes))
        throw Error(Errc::invalid_argument, std::string("run-length encoding: the ") + ranges[i].name +
                                                " range overlaps the " + ranges[j].name + " range");
    }
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
  select.count_out = edges ? vk::sub_view(a.temp, l.word) : a.runs_out;
  select.temp = a.temp;
  select.temp_zeroed = a.temp_zeroed;
  vk::IndexedSelect how;
  how.predicate = edges ? vk::predicate_run_edge : vk::predicate_run_start;
  how.values = !edges;
  const bool own_offsets = !edges && a.offsets.buffer != VK_NULL_HANDLE;
  how.indices = own_offsets ? a.offsets : vk::sub_view(a.temp, l.indices);
  vk::record_select_indexed(ctx, cmd, select, how);
  if (n == 0) {
    if (edges) {  // no runs: the lengths pass writes runs_out from the zero count
      vk::compute_barrier(cmd);
      const vk::Binding word = vk::bind_elements(ctx, a.temp, l.word / 4, 1, 4);
      const vk::Binding runs = vk::bind_elements(ctx, a.runs_out, 0, 1, 4);
      record_lengths(ctx, cmd, true, 0, word, word, runs, runs, runs);
    }
    return;
  }
  vk::compute_barrier(cmd);
  const uint64_t room = edges ? std::max<uint64_t>(n / 2, 1) : n;
  const vk::Binding found = vk::bind_elements(ctx, how.indices, 0, n, 4);
  const vk::Binding kept = edges ? vk::bind_elements(ctx, a.temp, l.word / 4, 1, 4)
                                 : vk::bind_elements(ctx, a.runs_out, 0, 1, 4);
  const vk::Binding runs = vk::bind_elements(ctx, a.runs_out, 0, 1, 4);
  // n == 1 has no non-trivial run: lengths and offsets may be empty, and are then never written.
  const bool no_room = edges && n / 2 == 0;
  const vk::Binding lengths = no_room ? runs : vk::bind_elements(ctx, a.lengths, 0, room, 4);
  const vk::Binding offsets = edges ? (no_room ? runs : vk::bind_elements(ctx, a.offsets, 0, room, 4)) : lengths;
  record_lengths(ctx, cmd, edges, n, found, kept, lengths, offsets, runs);
}

}  // namespace

TempRequirements run_length_temp_requirements(const Context& ctx, uint64_t count, const CompactConfig& config) {
  const Layout l = layout_for(ctx, count, config);
  TempRequirements req = l.compact;
  req.size = l.bytes;
  return req;
}

void record_run_length_encode(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  record_runs(ctx, cmd, args, false);
}

void record_non_trivial_runs(const Context& ctx, VkCommandBuffer cmd, const RunLengthArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  record_runs(ctx, cmd, args, true);
}

void prepare_run_length(const Context& ctx, uint64_t max_count, const CompactConfig& config) {
  prepare_compact(ctx, max_count, config, {.predicate = PredicateKind::run_start});
  // The indexed kernels and the lengths pass: record with no command buffer, over stand-in buffers, at
  // the largest count (the shapes of smaller counts differ only where prepare_compact covers them).
  RunLengthArgs a;
  a.config = config;
  a.count = std::max<uint64_t>(max_count, 2);
  a.input = a.values = a.lengths = a.offsets = a.runs_out = a.temp = vk::stand_in_view();
  for (const bool edges : {false, true}) record_runs(ctx, VK_NULL_HANDLE, a, edges, false);
}

namespace {

template <class Result, class T>
Result run_convenience(const Context& ctx, std::span<const T> values, CompactConfig config, bool edges) {
  config.type = data_type_of<T>::value;
  const uint64_t n = values.size();
  const TempRequirements req = run_length_temp_requirements(ctx, n, config);  // validates
  if (n == 0) return {};
  const VkPhysicalDevice physical = ctx.physical_device();
  const VkDevice device = ctx.device();
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  const uint64_t room = edges ? std::max<uint64_t>(n / 2, 1) : n;
  vk::OwnedBuffer in(physical, device, n * sizeof(T), usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer out_values(physical, device, edges ? 4 : n * sizeof(T), usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer lengths(physical, device, room * 4, usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer offsets(physical, device, room * 4, usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer runs(physical, device, 4, usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer temp(physical, device, req.size, req.usage, vk::MemoryKind::device_local);
  std::memcpy(in.mapped(), values.data(), n * sizeof(T));
  RunLengthArgs a;
  a.config = config;
  a.count = n;
  a.input = in.view();
  a.values = out_values.view();
  a.lengths = lengths.view();
  if (edges) a.offsets = offsets.view();
  a.runs_out = runs.view();
  a.temp = temp.view();
  vk::submit_for_host(ctx, {&in, &out_values, &lengths, &offsets, &runs, &temp},
                      [&](VkCommandBuffer cmd) { record_runs(ctx, cmd, a, edges); });
  uint32_t count = 0;
  std::memcpy(&count, runs.mapped(), 4);
  if (count > room)
    throw Error(Errc::vulkan_error, "the GPU reported " + std::to_string(count) + " runs in " + std::to_string(n) +
                                        " elements");
  Result r;
  r.lengths.resize(count);
  if (count > 0) std::memcpy(r.lengths.data(), lengths.mapped(), count * 4);
  if constexpr (std::is_same_v<Result, NonTrivialRuns>) {
    r.offsets.resize(count);
    if (count > 0) std::memcpy(r.offsets.data(), offsets.mapped(), count * 4);
  } else {
    r.values.resize(count);
    if (count > 0) std::memcpy(r.values.data(), out_values.mapped(), count * sizeof(T));
  }
  return r;
}

}  // namespace

template <Element T>
RunLengthResult<T> run_length_encode(const Context& ctx, std::span<const T> values, CompactConfig config) {
  return run_convenience<RunLengthResult<T>>(ctx, values, config, false);
}

template <Element T>
NonTrivialRuns non_trivial_runs(const Context& ctx, std::span<const T> values, CompactConfig config) {
  return run_convenience<NonTrivialRuns>(ctx, values, config, true);
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
