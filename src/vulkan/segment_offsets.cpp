// Segments given by offsets on Vulkan: segmented reductions (include/gpuscan/vulkan/segmented_reduce.hpp)
// -- the values read once by tiles (seg_offsets_tiles), the segmented scan of the tiles' totals
// (record_segmented_scan), and the segments that cross tiles completed from it (seg_offsets_finish) --
// and segmented scans by offsets (include/gpuscan/vulkan/segmented.hpp): head flags from the offsets
// (seg_offsets_heads), then the segmented scan into the output.
//
// The reduction's plan, layout of temp and checks are core's (core/segment_offsets_plan.hpp, shared with
// src/gl/segment_offsets.cpp); here they are bound and recorded, as the plans' parts
// (vulkan/segment_offsets.hpp) under the free calls. Temp of a scan by offsets: [flags: count
// u32][the segmented scan's scratch], each array at a multiple of 64 bytes. Bindings of the heads kernel
// (shaders/common/segment_offsets.glsl): 0 src (unread), 1 dst, 2 unread, 3 unread (pass_io.glsl's carry
// / indirect words), 4 offsets.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/plan.hpp"
#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/segment_offsets_plan.hpp"
#include "core/segmented_checks.hpp"
#include "core/variant_names.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/segmented.hpp"
#include "gpuscan/vulkan/segmented_reduce.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/segment_offsets.hpp"
#include "vulkan/segmented_program.hpp"

namespace gpuscan {
namespace {

constexpr uint64_t array_alignment = 64;

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

// A scan by offsets' temp: its head flags, then the segmented scan's own.
struct Layout {
  uint32_t workgroup_size = 0;  // of the heads kernel: the tile shape's W, valid on the device
  uint64_t flags = 0;           // byte offsets in temp
  uint64_t scan_temp = 0;
  TempRequirements scan_req;    // the segmented scan's own
  uint64_t bytes = 0;           // all of temp
};

// Checks the config and the count, and places the arrays in temp.
Layout layout_for(const Context& ctx, uint64_t count, const ScanConfig& config) {
  const uint32_t esize = element_size(config.type);
  const DeviceInfo& info = ctx.device_info();
  Layout l;
  l.workgroup_size =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info), esize)
          .workgroup_size;
  // The flags and the scanned values are bound once each (the segmented scan itself would window).
  core::check_offsets_count(count, impl_of(ctx).window_elements(std::max<uint32_t>(esize, 4)), config.type);
  l.scan_req = segmented_scan_temp_requirements(ctx, count, config);  // checks the config and the device
  if (count == 0) return l;
  l.flags = 0;
  l.scan_temp = round_up(count * 4, array_alignment);
  l.bytes = l.scan_temp + l.scan_req.size;
  return l;
}

// What the programs by offsets take of this backend: its segmented scan (of the tiles' totals, or of the
// values by the head flags) and its grid limits.
core::OffsetsBackend backend_of(const Context& ctx, const ScanConfig& scan) {
  core::OffsetsBackend b;
  b.segmented_scan = [&ctx, scan](uint64_t count) {
    return vk::segmented_scan_program(ctx, count, scan, SegmentHeads::flags);
  };
  b.limits = {impl_of(ctx).max_groups_x, ctx.device_info().max_workgroup_count[1]};
  return b;
}

// The reduction's layout in temp (core/segment_offsets_plan.hpp).
core::OffsetsReduceLayout reduce_layout_for(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  const ScanConfig scan = core::offsets_scan_config(config);
  layout_for(ctx, count, scan);  // checks the count and the config, as for scans by offsets
  // K = 1 unless asked: a tile of (head, value) pairs holds many registers, and on the H200 (u32, W = 256)
  // K = 1 was the fastest of K = 1, 2, 4 in every case measured (2^28 in 10^3 segments: 0.878 ms against
  // 0.963 and 1.248; 10^6 segments of mean 16: 0.162 ms against 0.167 and 0.188; bench/RESULTS.md).
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane ? config.vectors_per_lane : 1,
                       core::workgroup_limits(ctx.device_info()), element_size(config.type));
  return core::offsets_reduce_layout(count, config.type, shape, [&](uint64_t tiles) {
    const TempRequirements req = segmented_scan_temp_requirements(ctx, tiles, scan);
    return core::ScanTemp{req.size, req.alignment};
  });
}

// Records (or with cmd VK_NULL_HANDLE only builds the pipelines of) the reduction's program.
void record_passes(const Context& ctx, VkCommandBuffer cmd, const core::OffsetsReduceLayout& l,
                   const SegmentedReduceArgs& args) {
  const BufferView buffers[] = {args.input, args.offsets, args.output, args.temp};  // core::OffsetsBuffer's order
  vk::execute(ctx, cmd,
              core::offsets_reduce_program(l, args.count, args.segments, args.config.type, args.config.op,
                                           backend_of(ctx, core::offsets_scan_config(args.config))),
              buffers);
}

}  // namespace

namespace {

TempRequirements reduce_temp_of(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, count, config);
  TempRequirements req;
  req.size = l.bytes;
  req.alignment = l.alignment;
  req.usage = segmented_scan_temp_requirements(ctx, l.tiles, core::offsets_scan_config(config)).usage |
              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  return req;
}

void record_offsets_reduce(const Context& ctx, VkCommandBuffer cmd, const SegmentedReduceArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, args.count, args.config);
  core::check_segment_count(args.segments);
  if (args.segments == 0) return;
  core::check_offsets_reduce_buffers(args.input, args.offsets, args.output, args.temp, args.count, args.segments,
                                     element_size(args.config.type), l, vk::check_view, vk::overlaps);
  record_passes(ctx, cmd, l, args);
}

TempRequirements offsets_scan_temp_of(const Context& ctx, uint64_t count, const ScanConfig& config) {
  const Layout l = layout_for(ctx, count, config);
  TempRequirements req;
  req.size = l.bytes;
  req.alignment = std::max<VkDeviceSize>(l.scan_req.alignment, 4);
  req.usage = l.scan_req.usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  return req;
}

void record_offsets_scan(const Context& ctx, VkCommandBuffer cmd, const SegmentedScanByOffsetsArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const Layout l = layout_for(ctx, args.count, args.config);
  core::check_segment_count(args.segments);
  if (args.count == 0) return;
  const uint32_t esize = element_size(args.config.type);
  vk::check_view("offsets", args.offsets, args.segments + 1, 4, "the segmented scan needs S + 1 offsets:");
  const uint64_t off_bytes = (args.segments + 1) * 4, out_bytes = args.count * esize;
  if (vk::overlaps(args.offsets, off_bytes, args.output, out_bytes))
    throw Error(Errc::invalid_argument, "offsets and output ranges overlap: use disjoint ranges");
  if (vk::overlaps(args.temp, l.bytes, args.offsets, off_bytes) || vk::overlaps(args.temp, l.bytes, args.input, out_bytes) ||
      vk::overlaps(args.temp, l.bytes, args.output, out_bytes))
    throw Error(Errc::invalid_argument, "temp storage overlaps the input, offsets or output range");
  const VkDeviceSize align = std::max<VkDeviceSize>(l.scan_req.alignment, 4);
  if (args.temp.offset % align != 0)
    throw Error(Errc::misaligned, "temp starts at byte " + std::to_string(args.temp.offset) + ", not a multiple of " +
                                      std::to_string(align) + " (segmented_scan_by_offsets_temp_requirements' alignment)");
  vk::check_view("temp", args.temp, l.bytes / 4, 4, "the segmented scan needs");
  // The scan's own checks (views, overlaps of input, output and temp) run before anything is recorded.
  const SegmentedScanArgs scan{args.config, SegmentHeads::flags, args.count, args.input, vk::sub_view(args.temp, l.flags),
                               args.output, vk::sub_view(args.temp, l.scan_temp)};
  core::check_segmented_buffers(scan.input, scan.heads, scan.output, scan.temp, args.count, esize, 4, l.scan_req.size,
                                vk::check_view, vk::overlaps);
  const BufferView buffers[] = {args.input, args.offsets, args.output, args.temp};  // core::OffsetsBuffer's order
  vk::execute(ctx, cmd,
              core::offsets_scan_program(args.count, args.segments, l.flags, l.scan_temp, l.workgroup_size,
                                         backend_of(ctx, args.config)),
              buffers);
}

void prepare_offsets_reduce(const Context& ctx, uint64_t max_count, const ReduceConfig& config) {
  SegmentedReduceArgs args{config, std::max<uint64_t>(max_count, 1), 1};
  args.input = args.offsets = args.output = args.temp = vk::stand_in_view();
  const core::OffsetsReduceLayout l = reduce_layout_for(ctx, args.count, config);
  prepare_segmented_scan(ctx, std::max<uint64_t>(l.tiles, 2), core::offsets_scan_config(config));
  record_passes(ctx, VK_NULL_HANDLE, l, args);
  args.count = 0;  // the identities of an empty input
  record_passes(ctx, VK_NULL_HANDLE, reduce_layout_for(ctx, 0, config), args);
}

}  // namespace

}  // namespace gpuscan

namespace gpuscan::vk {

TempRequirements segmented_reduce_temp(const Context& ctx, const primitive::SegmentedReduce& r, uint64_t max_count) {
  return reduce_temp_of(ctx, max_count, r.config);
}

void segmented_reduce_prepare(const Context& ctx, const primitive::SegmentedReduce& r, uint64_t max_count) {
  prepare_offsets_reduce(ctx, max_count, r.config);
}

void segmented_reduce_record(const Context& ctx, VkCommandBuffer cmd, const primitive::SegmentedReduce& r,
                             const SegmentedReduceBuffers& b) {
  record_offsets_reduce(ctx, cmd, {r.config, b.count, b.segments, b.input, b.offsets, b.output, b.temp});
}

TempRequirements offsets_scan_temp(const Context& ctx, const primitive::SegmentedScanByOffsets& s, uint64_t max_count) {
  return offsets_scan_temp_of(ctx, max_count, s.config);
}

void offsets_scan_record(const Context& ctx, VkCommandBuffer cmd, const primitive::SegmentedScanByOffsets& s,
                         const OffsetsScanBuffers& b) {
  record_offsets_scan(ctx, cmd, {s.config, b.count, b.segments, b.input, b.offsets, b.output, b.temp});
}

}  // namespace gpuscan::vk

namespace gpuscan {

// The free calls: one plan each, made for this one call.

TempRequirements segmented_reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  return Plan(ctx, primitive::SegmentedReduce{config}, core::one_call(count)).temp_requirements();
}

void record_segmented_reduce(const Context& ctx, VkCommandBuffer cmd, const SegmentedReduceArgs& args) {
  Plan(ctx, primitive::SegmentedReduce{args.config}, core::one_call(args.count))
      .record(cmd, {args.count, args.segments, args.input, args.offsets, args.output, args.temp});
}

void prepare_segmented_reduce(const Context& ctx, uint64_t max_count, const ReduceConfig& config) {
  Plan(ctx, primitive::SegmentedReduce{config}, {.max_count = max_count});
}

TempRequirements segmented_scan_by_offsets_temp_requirements(const Context& ctx, uint64_t count,
                                                             const ScanConfig& config) {
  return Plan(ctx, primitive::SegmentedScanByOffsets{config}, core::one_call(count)).temp_requirements();
}

void record_segmented_scan_by_offsets(const Context& ctx, VkCommandBuffer cmd, const SegmentedScanByOffsetsArgs& args) {
  Plan(ctx, primitive::SegmentedScanByOffsets{args.config}, core::one_call(args.count))
      .record(cmd, {args.count, args.segments, args.input, args.offsets, args.output, args.temp});
}

// The host-data calls are one-shot plans (gpuscan/vulkan/plan.hpp).
std::vector<std::byte> segmented_reduce_bytes(const Context& ctx, std::span<const std::byte> values,
                                              std::span<const uint32_t> offsets, const ReduceConfig& config) {
  return Plan(ctx, primitive::SegmentedReduce{config}, core::one_call(values.size() / element_size(config.type)))
      .run({.values = values, .offsets = offsets});
}

template <Element T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                ReduceConfig config) {
  config.type = data_type_of<T>::value;
  return gpuscan::detail::from_bytes<T>(segmented_reduce_bytes(ctx, std::as_bytes(values), offsets, config));
}

template <Element T>
std::vector<T> segmented_scan_by_offsets(const Context& ctx, std::span<const T> values,
                                         std::span<const uint32_t> offsets, ScanConfig config) {
  config.type = data_type_of<T>::value;
  return gpuscan::detail::from_bytes<T>(Plan(ctx, primitive::SegmentedScanByOffsets{config},
                                             core::one_call(values.size()))
                                            .run({.values = std::as_bytes(values), .offsets = offsets}));
}

template std::vector<uint32_t> segmented_reduce(const Context&, std::span<const uint32_t>, std::span<const uint32_t>, ReduceConfig);
template std::vector<int32_t> segmented_reduce(const Context&, std::span<const int32_t>, std::span<const uint32_t>, ReduceConfig);
template std::vector<float> segmented_reduce(const Context&, std::span<const float>, std::span<const uint32_t>, ReduceConfig);
template std::vector<uint64_t> segmented_reduce(const Context&, std::span<const uint64_t>, std::span<const uint32_t>, ReduceConfig);
template std::vector<int64_t> segmented_reduce(const Context&, std::span<const int64_t>, std::span<const uint32_t>, ReduceConfig);
template std::vector<double> segmented_reduce(const Context&, std::span<const double>, std::span<const uint32_t>, ReduceConfig);

template std::vector<uint32_t> segmented_scan_by_offsets(const Context&, std::span<const uint32_t>,
                                                        std::span<const uint32_t>, ScanConfig);
template std::vector<int32_t> segmented_scan_by_offsets(const Context&, std::span<const int32_t>,
                                                       std::span<const uint32_t>, ScanConfig);
template std::vector<float> segmented_scan_by_offsets(const Context&, std::span<const float>, std::span<const uint32_t>,
                                                     ScanConfig);
template std::vector<uint64_t> segmented_scan_by_offsets(const Context&, std::span<const uint64_t>,
                                                        std::span<const uint32_t>, ScanConfig);
template std::vector<int64_t> segmented_scan_by_offsets(const Context&, std::span<const int64_t>,
                                                       std::span<const uint32_t>, ScanConfig);
template std::vector<double> segmented_scan_by_offsets(const Context&, std::span<const double>,
                                                      std::span<const uint32_t>, ScanConfig);

}  // namespace gpuscan
