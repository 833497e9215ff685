// The Vulkan histogram (gpuscan/vulkan/histogram.hpp): checks, the edge table and counts set up with
// transfers, then one dispatch of shaders/histogram.comp per window of the input.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "core/histogram_plan.hpp"
#include "gpuscan/vulkan/histogram.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/indirect.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan {
namespace {

uint32_t workgroup_size(const Context& ctx, const HistogramConfig& config) {
  return core::histogram_workgroup_size(config.workgroup_size, ctx.device_info().max_workgroup_invocations);
}

PipelineKey key_of(const Context& ctx, const HistogramConfig& config) {
  core::histogram_count_bytes(config.counts);
  if (config.counts == DataType::u64 && !impl_of(ctx).single_pass_enabled)
    throw Error(Errc::unsupported, "u64 histogram counts need 64-bit buffer atomics (Vulkan 1.2 with "
                                   "shaderBufferInt64Atomics), which this device or Context lacks; use u32 counts");
  const std::string obstacle = impl_of(ctx).type_obstacle(config.type, false, "histograms");
  if (!obstacle.empty()) throw Error(Errc::unsupported, obstacle);
  PipelineKey key;
  key.variant = core::histogram_variant(config);
  key.workgroup_size = workgroup_size(ctx, config);
  return key;
}

core::HistogramPlan plan(const Context& ctx, const HistogramBins& bins, const HistogramConfig& config, uint64_t count,
                         const IndirectCount* count_from) {
  return core::plan_histogram(bins, config, count, count_from != nullptr, count_from && count_from->is_64bit,
                              count_from && count_from->status.buffer != VK_NULL_HANDLE,
                              impl_of(ctx).max_binding_bytes, "maxStorageBufferRange");
}

}  // namespace

TempRequirements histogram_temp_requirements(const Context& ctx, const HistogramBins& bins,
                                             const HistogramConfig& config) {
  TempRequirements req;
  req.size = plan(ctx, bins, config, 0, nullptr).temp_bytes();
  req.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  req.alignment = 4;
  return req;
}

void prepare_histogram(const Context& ctx, const HistogramConfig& config) {
  impl_of(ctx).pipeline(key_of(ctx, config));
}

void record_histogram(const Context& ctx, VkCommandBuffer cmd, const HistogramArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const HistogramConfig& config = args.config;
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  const core::HistogramPlan p = plan(ctx, args.bins, config, args.count, count_from);
  const PipelineKey key = key_of(ctx, config);
  const uint32_t num_bins = p.num_bins;
  const uint32_t cbytes = p.count_bytes;
  const uint64_t table_bytes = p.table_bytes();
  const uint32_t sbytes = p.table.element_bytes;

  vk::check_view("counts", args.counts, num_bins, cbytes, "the histogram has bins:");
  if (!config.accumulate && !(args.counts.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
    throw Error(Errc::missing_usage, "counts buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which zeroing it "
                                     "(vkCmdFillBuffer) needs; add it or set HistogramConfig::accumulate");
  if (table_bytes > 0) {
    vk::check_view("temp", args.temp, p.table.edges(), sbytes, "the edge table needs");
    if (!(args.temp.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
      throw Error(Errc::missing_usage, "temp buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which writing the "
                                       "edge table (vkCmdUpdateBuffer) needs (histogram_temp_requirements)");
  }
  if (args.count > 0) vk::check_view("input", args.input, args.count, sbytes, "the histogram needs");
  if (count_from) {
    vk::check_view("count_from.buffer", count_from->buffer, count_from->is_64bit ? 2 : 1, 4, "the count takes");
    if (p.status) vk::check_view("count_from.status", count_from->status, 1, 4, "the status takes");
  }
  core::check_histogram_overlaps({vk::byte_range(args.input, p.sample_bytes(args.count)),
                                  vk::byte_range(args.counts, p.counts_bytes()), vk::byte_range(args.temp, table_bytes),
                                  count_from ? vk::byte_range(count_from->buffer, 8) : core::ByteRange{},
                                  p.status ? vk::byte_range(count_from->status, 4) : core::ByteRange{}});

  // Zero the counts and write the edge table (at most 65536 bytes per vkCmdUpdateBuffer).
  if (!config.accumulate) vkCmdFillBuffer(cmd, args.counts.buffer, args.counts.offset, p.counts_bytes(), 0);
  for (uint64_t done = 0; done < table_bytes; done += 65536) {
    const uint64_t len = std::min<uint64_t>(65536, table_bytes - done);
    vkCmdUpdateBuffer(cmd, args.temp.buffer, args.temp.offset + done, len,
                      reinterpret_cast<const std::byte*>(p.table.words.data()) + done);
  }
  vk::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  // With a count in GPU memory the status word is written even when no sample can be counted.
  if (p.dispatches_nothing()) return;

  Context::Impl& impl = impl_of(ctx);
  const vk::Binding counts = vk::bind_elements(ctx, args.counts, 0, num_bins, cbytes);
  const vk::Binding edges =  // no table when no edge is a sample value; the kernel then reads none
      p.table.words.empty() ? counts : vk::bind_elements(ctx, args.temp, 0, p.table.edges(), sbytes);
  const vk::Binding words = count_from ? vk::bind_elements(ctx, count_from->buffer, 0, count_from->is_64bit ? 2 : 1, 4)
                                       : counts;  // unread
  const vk::Binding status_word = p.status ? vk::bind_elements(ctx, count_from->status, 0, 1, 4) : counts;  // unwritten
  for (const core::HistogramWindow& w :
       core::histogram_windows(p, impl.window_elements(sbytes), key.workgroup_size, impl.max_groups_x)) {
    if (w.start > 0)  // windows add to the same counts (and read the count words the first one set beside the status)
      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const vk::Binding src = w.len ? vk::bind_elements(ctx, args.input, w.start, w.len, sbytes) : counts;  // unread when empty
    const auto params = core::histogram_params(
        p, w, {src.element_offset, counts.element_offset, edges.element_offset, words.element_offset,
               status_word.element_offset}, args.count);
    const VkDescriptorBufferInfo infos[5] = {src.info, counts.info, edges.info, words.info, status_word.info};
    impl.record_dispatch(cmd, key, infos, params, w.groups, 1);
  }
}

std::vector<uint64_t> histogram_bytes(const Context& ctx, std::span<const std::byte> input, const HistogramBins& bins,
                                      const HistogramConfig& config) {
  const uint64_t count = core::histogram_sample_count(input.size(), config.type);
  const TempRequirements req = histogram_temp_requirements(ctx, bins, config);  // checks the bins
  const uint32_t cbytes = core::histogram_count_bytes(config.counts);
  const uint32_t num_bins = bins.num_bins();
  const VkPhysicalDevice physical = ctx.physical_device();
  const VkDevice device = ctx.device();
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  vk::OwnedBuffer samples(physical, device, std::max<uint64_t>(8, input.size()), usage, vk::MemoryKind::host_visible);
  vk::OwnedBuffer counts(physical, device, uint64_t{num_bins} * cbytes, usage, vk::MemoryKind::host_readback);
  vk::OwnedBuffer temp(physical, device, req.size, req.usage, vk::MemoryKind::device_local);
  if (count) std::memcpy(samples.mapped(), input.data(), input.size());
  HistogramConfig c = config;
  c.accumulate = false;
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_ACCESS_SHADER_READ_BIT);
    record_histogram(ctx, cmd, {c, bins, count, samples.view(), counts.view(), temp.view()});
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  return core::widen_counts({static_cast<const std::byte*>(counts.mapped()), uint64_t{num_bins} * cbytes}, num_bins,
                            cbytes);
}

template <Element T>
std::vector<uint64_t> histogram(const Context& ctx, std::span<const T> input, const HistogramBins& bins,
                                const HistogramConfig& options) {
  HistogramConfig config = options;
  config.type = data_type_of<T>::value;
  return histogram_bytes(ctx, std::as_bytes(input), bins, config);
}

template std::vector<uint64_t> histogram(const Context&, std::span<const uint32_t>, const HistogramBins&,
                                         const HistogramConfig&);
template std::vector<uint64_t> histogram(const Context&, std::span<const int32_t>, const HistogramBins&,
                                         const HistogramConfig&);
template std::vector<uint64_t> histogram(const Context&, std::span<const float>, const HistogramBins&,
                                         const HistogramConfig&);
template std::vector<uint64_t> histogram(const Context&, std::span<const uint64_t>, const HistogramBins&,
                                         const HistogramConfig&);
template std::vector<uint64_t> histogram(const Context&, std::span<const int64_t>, const HistogramBins&,
                                         const HistogramConfig&);
template std::vector<uint64_t> histogram(const Context&, std::span<const double>, const HistogramBins&,
                                         const HistogramConfig&);

}  // namespace gpuscan
