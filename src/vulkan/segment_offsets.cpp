// Segments given by offsets on Vulkan: segmented reductions (include/gpuscan/vulkan/segmented_reduce.hpp)
// -- head flags from the offsets (seg_offsets_heads), the segmented scan (record_segmented_scan,
// inclusive) into temp, and each segment's result from it (seg_offsets_gather) -- and segmented scans
// by offsets (include/gpuscan/vulkan/segmented.hpp): the same flags, then the segmented scan into output.
//
// Temp of a reduction: [flags: count u32][scanned: count elements][the segmented scan's scratch]; of a
// scan: [flags][the segmented scan's scratch]; each array at a multiple of 64 bytes. Bindings of both kernels (shaders/common/segment_offsets.glsl): 0 src (unread
// by the heads kernel), 1 dst, 2 unread, 3 unread (pass_io.glsl's carry / indirect words), 4 offsets.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/plan.hpp"
#include "core/scan_shape.hpp"
#include "core/segmented_checks.hpp"
#include "core/variant_names.hpp"
#include "gpuscan/vulkan/segmented.hpp"
#include "gpuscan/vulkan/segmented_reduce.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan {
namespace {

constexpr uint64_t array_alignment = 64;

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

ScanConfig scan_config(const ReduceConfig& c) {
  ScanConfig s;
  s.type = c.type;
  s.op = c.op;
  s.kind = ScanKind::inclusive;
  s.workgroup_size = c.workgroup_size;
  s.vectors_per_lane = c.vectors_per_lane;
  return s;
}

struct Layout {
  uint32_t workgroup_size = 0;  // of the two offset kernels: the tile shape's W, valid on the device
  uint64_t flags = 0;           // byte offsets in temp
  uint64_t scanned = 0;
  uint64_t scan_temp = 0;
  TempRequirements scan_req;    // the segmented scan's own
  uint64_t bytes = 0;           // all of temp
};

// Checks the config and the count, and places the arrays in temp (`scanned`: a reduction's scanned
// values; a scan by offsets writes its output instead).
Layout layout_for(const Context& ctx, uint64_t count, const ScanConfig& config, bool scanned = true) {
  const uint32_t esize = element_size(config.type);
  const DeviceInfo& info = ctx.device_info();
  Layout l;
  l.workgroup_size =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(info), esize)
          .workgroup_size;
  // The flags and the scanned values are bound once each (the segmented scan itself would window).
  const uint64_t fit = impl_of(ctx).window_elements(std::max<uint32_t>(esize, 4));
  if (count > fit || count > UINT32_MAX - 1)
    throw Error(Errc::too_large, "segments by offsets bind their head flags (and a reduction's partial results) "
                                 "once: at most " + std::to_string(std::min<uint64_t>(fit, UINT32_MAX - 1)) +
                                 " elements of " + std::string(to_string(config.type)) + " on this device, not " +
                                 std::to_string(count) + "; run the data in pieces of fewer elements");
  l.scan_req = segmented_scan_temp_requirements(ctx, count, config);  // checks the config and the device
  if (count == 0) return l;
  l.flags = 0;
  l.scanned = round_up(count * 4, array_alignment);
  l.scan_temp = scanned ? round_up(l.scanned + count * esize, array_alignment) : l.scanned;
  l.bytes = l.scan_temp + l.scan_req.size;
  return l;
}

using vk::compute_barrier;
using vk::sub_view;

void check_segments(uint64_t segments) {
  if (segments > UINT32_MAX - 2)
    throw Error(Errc::too_large, "segments by offsets are at most 2^32 - 2 (u32 offsets), not " +
                                     std::to_string(segments));
}

// One dispatch of an offsets kernel over `items` invocations (n: pass_io.glsl's element count).
void dispatch_offsets_kernel(const Context& ctx, VkCommandBuffer cmd, const std::string& variant, Op op,
                             uint32_t workgroup_size, uint64_t n, uint64_t items, uint64_t segments,
                             const vk::Binding& src, const vk::Binding& dst, const vk::Binding& offsets) {
  Context::Impl& impl = impl_of(ctx);
  const uint64_t blocks = std::max<uint64_t>(1, (items + workgroup_size - 1) / workgroup_size);
  uint32_t gx = 0, gy = 0;
  core::grid_for(blocks, {impl.max_groups_x, ctx.device_info().max_workgroup_count[1]}, gx, gy);
  PipelineKey key;
  key.variant = variant;
  key.op = core::op_constant(op);
  key.workgroup_size = workgroup_size;
  const VkDescriptorBufferInfo infos[5] = {src.info, dst.info, src.info, src.info, offsets.info};
  uint32_t params[push_constant_words] = {static_cast<uint32_t>(n), src.element_offset, dst.element_offset, 0, gx,
                                          static_cast<uint32_t>(blocks)};
  params[10] = static_cast<uint32_t>(segments);
  params[11] = offsets.element_offset;
  impl.record_dispatch(cmd, key, infos, params, gx, gy);
}

// Records (or with cmd VK_NULL_HANDLE only builds the pipelines of) the three passes.
void record_passes(const Context& ctx, VkCommandBuffer cmd, const Layout& l, const SegmentedReduceArgs& args) {
  const uint32_t esize = element_size(args.config.type);
  const std::string gather = "seg_offsets_gather." + std::string(to_string(args.config.type));
  const vk::Binding offsets = vk::bind_elements(ctx, args.offsets, 0, args.segments + 1, 4);
  const vk::Binding out = vk::bind_elements(ctx, args.output, 0, args.segments, esize);
  if (args.count == 0) {  // every segment is empty: identities only (src is bound but not read)
    dispatch_offsets_kernel(ctx, cmd, gather, args.config.op, l.workgroup_size, 0, args.segments, args.segments, out,
                            out, offsets);
    return;
  }
  const vk::Binding flags = vk::bind_elements(ctx, args.temp, l.flags / 4, args.count, 4);
  dispatch_offsets_kernel(ctx, cmd, "seg_offsets_heads", Op::add, l.workgroup_size, args.count, args.count,
                          args.segments, flags, flags, offsets);
  if (cmd) compute_barrier(cmd);
  SegmentedScanArgs scan{scan_config(args.config), SegmentHeads::flags, args.count, args.input,
                         sub_view(args.temp, l.flags), sub_view(args.temp, l.scanned), sub_view(args.temp, l.scan_temp)};
  if (cmd) record_segmented_scan(ctx, cmd, scan);
  if (cmd) compute_barrier(cmd);
  const vk::Binding scanned = vk::bind_elements(ctx, args.temp, l.scanned / esize, args.count, esize);
  dispatch_offsets_kernel(ctx, cmd, gather, args.config.op, l.workgroup_size, args.count, args.segments,
                          args.segments, scanned, out, offsets);
}

}  // namespace

TempRequirements segmented_reduce_temp_requirements(const Context& ctx, uint64_t count, const ReduceConfig& config) {
  const Layout l = layout_for(ctx, count, scan_config(config));
  TempRequirements req;
  req.size = l.bytes;
  req.alignment = std::max<VkDeviceSize>(l.scan_req.alignment, 4);
  req.usage = l.scan_req.usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  return req;
}

void record_segmented_reduce(const Context& ctx, VkCommandBuffer cmd, const SegmentedReduceArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const Layout l = layout_for(ctx, args.count, scan_config(args.config));
  check_segments(args.segments);
  if (args.segments == 0) return;
  const uint32_t esize = element_size(args.config.type);
  const char* need = "the segmented reduction needs";
  if (args.count > 0) vk::check_view("input", args.input, args.count, esize, need);
  vk::check_view("offsets", args.offsets, args.segments + 1, 4, "the segmented reduction needs S + 1 offsets:");
  vk::check_view("output", args.output, args.segments, esize, need);
  const uint64_t in_bytes = args.count * esize, off_bytes = (args.segments + 1) * 4, out_bytes = args.segments * esize;
  if (args.count > 0 && vk::overlaps(args.input, in_bytes, args.output, out_bytes))
    throw Error(Errc::invalid_argument, "input and output ranges overlap: the reduction reads the values after "
                                        "it has written results; use disjoint ranges");
  if (vk::overlaps(args.offsets, off_bytes, args.output, out_bytes))
    throw Error(Errc::invalid_argument, "offsets and output ranges overlap: the last pass reads offsets while "
                                        "it writes results; use disjoint ranges");
  if (l.bytes > 0) {
    vk::check_view("temp", args.temp, l.bytes / 4, 4, need);
    if (vk::overlaps(args.temp, l.bytes, args.input, in_bytes) || vk::overlaps(args.temp, l.bytes, args.offsets, off_bytes) ||
        vk::overlaps(args.temp, l.bytes, args.output, out_bytes))
      throw Error(Errc::invalid_argument, "temp storage overlaps the input, offsets or output range");
    const VkDeviceSize align = std::max<VkDeviceSize>(l.scan_req.alignment, 4);
    if (args.temp.offset % align != 0)
      throw Error(Errc::misaligned, "temp starts at byte " + std::to_string(args.temp.offset) +
                                        ", not a multiple of " + std::to_string(align) +
                                        " (segmented_reduce_temp_requirements' alignment)");
  }
  record_passes(ctx, cmd, l, args);
}

TempRequirements segmented_scan_by_offsets_temp_requirements(const Context& ctx, uint64_t count,
                                                             const ScanConfig& config) {
  const Layout l = layout_for(ctx, count, config, false);
  TempRequirements req;
  req.size = l.bytes;
  req.alignment = std::max<VkDeviceSize>(l.scan_req.alignment, 4);
  req.usage = l.scan_req.usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  return req;
}

void record_segmented_scan_by_offsets(const Context& ctx, VkCommandBuffer cmd, const SegmentedScanByOffsetsArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const Layout l = layout_for(ctx, args.count, args.config, false);
  check_segments(args.segments);
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
  const SegmentedScanArgs scan{args.config, SegmentHeads::flags, args.count, args.input, sub_view(args.temp, l.flags),
                               args.output, sub_view(args.temp, l.scan_temp)};
  core::check_segmented_buffers(scan.input, scan.heads, scan.output, scan.temp, args.count, esize, 4, l.scan_req.size,
                                vk::check_view, vk::overlaps);
  const vk::Binding offsets = vk::bind_elements(ctx, args.offsets, 0, args.segments + 1, 4);
  const vk::Binding flags = vk::bind_elements(ctx, args.temp, l.flags / 4, args.count, 4);
  dispatch_offsets_kernel(ctx, cmd, "seg_offsets_heads", Op::add, l.workgroup_size, args.count, args.count,
                          args.segments, flags, flags, offsets);
  compute_barrier(cmd);
  record_segmented_scan(ctx, cmd, scan);
}

void prepare_segmented_reduce(const Context& ctx, uint64_t max_count, const ReduceConfig& config) {
  SegmentedReduceArgs args{config, std::max<uint64_t>(max_count, 1), 1};
  args.input = args.offsets = args.output = args.temp = vk::stand_in_view();
  prepare_segmented_scan(ctx, args.count, scan_config(config));
  record_passes(ctx, VK_NULL_HANDLE, layout_for(ctx, args.count, scan_config(config)), args);
}

namespace {

// The host-side check of the convenience calls: S + 1 >= 1 offsets, non-decreasing, the last within n.
void check_offsets(std::span<const uint32_t> offsets, uint64_t n) {
  if (offsets.empty())
    throw Error(Errc::invalid_argument, "offsets is empty: S segments take S + 1 offsets (one, {0}, for none)");
  for (size_t s = 0; s + 1 < offsets.size(); ++s)
    if (offsets[s + 1] < offsets[s])
      throw Error(Errc::invalid_argument, "offsets decrease at index " + std::to_string(s + 1) + " (" +
                                              std::to_string(offsets[s]) + " then " + std::to_string(offsets[s + 1]) +
                                              "): they must be non-decreasing");
  if (offsets.back() > n)
    throw Error(Errc::invalid_argument, "the last offset is " + std::to_string(offsets.back()) +
                                            ", past the end of the " + std::to_string(n) + " values");
}

std::vector<std::byte> run_segmented_reduce(const Context& ctx, std::span<const std::byte> values,
                                            std::span<const uint32_t> offsets, const ReduceConfig& config) {
  const uint32_t esize = element_size(config.type);
  if (values.size() % esize != 0)
    throw Error(Errc::invalid_argument, "values hold " + std::to_string(values.size()) +
                                            " bytes, not a whole number of " + std::string(to_string(config.type)) +
                                            " elements");
  const uint64_t n = values.size() / esize;
  check_offsets(offsets, n);
  const uint64_t segments = offsets.size() - 1;
  check_segments(segments);
  const TempRequirements req = segmented_reduce_temp_requirements(ctx, n, config);  // validates the config
  std::vector<std::byte> result(segments * esize);
  if (segments == 0) return result;
  const VkPhysicalDevice physical = ctx.physical_device();
  const VkDevice device = ctx.device();
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  vk::OwnedBuffer in(physical, device, std::max<uint64_t>(n * esize, 4), usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer offs(physical, device, offsets.size() * 4, usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer out(physical, device, segments * esize, usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer temp(physical, device, std::max<VkDeviceSize>(req.size, 4), usage | req.usage,
                       vk::MemoryKind::device_local);
  if (n) std::memcpy(in.mapped(), values.data(), n * esize);
  std::memcpy(offs.mapped(), offsets.data(), offsets.size() * 4);
  const SegmentedReduceArgs args{config, n, segments, in.view(), offs.view(), out.view(), temp.view()};
  vk::submit_for_host(ctx, {&in, &offs, &out, &temp},
                      [&](VkCommandBuffer cmd) { record_segmented_reduce(ctx, cmd, args); });
  std::memcpy(result.data(), out.mapped(), result.size());
  return result;
}

template <class T>
std::vector<T> run_segmented_scan_by_offsets(const Context& ctx, std::span<const T> values,
                                             std::span<const uint32_t> offsets, const ScanConfig& config) {
  const uint64_t n = values.size();
  check_offsets(offsets, n);
  check_segments(offsets.size() - 1);
  const TempRequirements req = segmented_scan_by_offsets_temp_requirements(ctx, n, config);
  std::vector<T> result(n);
  if (n == 0) return result;
  const VkPhysicalDevice physical = ctx.physical_device();
  const VkDevice device = ctx.device();
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  vk::OwnedBuffer in(physical, device, n * sizeof(T), usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer offs(physical, device, offsets.size() * 4, usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer out(physical, device, n * sizeof(T), usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer temp(physical, device, std::max<VkDeviceSize>(req.size, 4), usage | req.usage,
                       vk::MemoryKind::device_local);
  std::memcpy(in.mapped(), values.data(), n * sizeof(T));
  std::memcpy(offs.mapped(), offsets.data(), offsets.size() * 4);
  const SegmentedScanByOffsetsArgs args{config, n, offsets.size() - 1, in.view(), offs.view(), out.view(), temp.view()};
  vk::submit_for_host(ctx, {&in, &offs, &out, &temp},
                      [&](VkCommandBuffer cmd) { record_segmented_scan_by_offsets(ctx, cmd, args); });
  std::memcpy(result.data(), out.mapped(), n * sizeof(T));
  return result;
}

}  // namespace

std::vector<std::byte> segmented_reduce_bytes(const Context& ctx, std::span<const std::byte> values,
                                              std::span<const uint32_t> offsets, const ReduceConfig& config) {
  return run_segmented_reduce(ctx, values, offsets, config);
}

template <Element T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> values, std::span<const uint32_t> offsets,
                                Op op) {
  ReduceConfig config;
  config.type = data_type_of<T>::value;
  config.op = op;
  const std::vector<std::byte> bytes = run_segmented_reduce(ctx, std::as_bytes(values), offsets, config);
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

template <Element T>
std::vector<T> segmented_scan_by_offsets(const Context& ctx, std::span<const T> values,
                                         std::span<const uint32_t> offsets, ScanConfig config) {
  config.type = data_type_of<T>::value;
  return run_segmented_scan_by_offsets<T>(ctx, values, offsets, config);
}

template std::vector<uint32_t> segmented_reduce(const Context&, std::span<const uint32_t>, std::span<const uint32_t>, Op);
template std::vector<int32_t> segmented_reduce(const Context&, std::span<const int32_t>, std::span<const uint32_t>, Op);
template std::vector<float> segmented_reduce(const Context&, std::span<const float>, std::span<const uint32_t>, Op);
template std::vector<uint64_t> segmented_reduce(const Context&, std::span<const uint64_t>, std::span<const uint32_t>, Op);
template std::vector<int64_t> segmented_reduce(const Context&, std::span<const int64_t>, std::span<const uint32_t>, Op);
template std::vector<double> segmented_reduce(const Context&, std::span<const double>, std::span<const uint32_t>, Op);

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
