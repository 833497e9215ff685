// The Vulkan histogram (gpuscan/vulkan/histogram.hpp): checks, the edge table and counts set up with
// transfers, then one dispatch of shaders/histogram.comp per window of the input.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "core/histogram_edges.hpp"
#include "gpuscan/vulkan/histogram.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan {
namespace {

constexpr uint32_t kDefaultWorkgroup = 256;
constexpr uint32_t kMaxGroups = 2048;  // enough to fill a large GPU; each workgroup strides over the rest

uint32_t count_bytes(DataType counts) {
  if (counts != DataType::u32 && counts != DataType::u64)
    throw Error(Errc::invalid_argument, "histogram counts are u32 or u64, not " + std::string(to_string(counts)));
  return element_size(counts);
}

uint32_t workgroup_size(const Context& ctx, const HistogramConfig& config) {
  const uint32_t most = ctx.device_info().max_workgroup_invocations;
  if (config.workgroup_size == 0) return std::min(kDefaultWorkgroup, std::bit_floor(most));
  if (!std::has_single_bit(config.workgroup_size) || config.workgroup_size > most)
    throw Error(Errc::invalid_argument, "histogram workgroup size " + std::to_string(config.workgroup_size) +
                                            " is not a power of two up to " + std::to_string(most));
  return config.workgroup_size;
}

PipelineKey key_of(const Context& ctx, const HistogramConfig& config) {
  count_bytes(config.counts);
  if (config.counts == DataType::u64 && !impl_of(ctx).single_pass_enabled)
    throw Error(Errc::unsupported, "u64 histogram counts need 64-bit buffer atomics (Vulkan 1.2 with "
                                   "shaderBufferInt64Atomics), which this device or Context lacks; use u32 counts");
  const std::string obstacle = impl_of(ctx).type_obstacle(config.type, false, "histograms");
  if (!obstacle.empty()) throw Error(Errc::unsupported, obstacle);
  PipelineKey key;
  key.variant = "histogram." + std::string(to_string(config.type)) + "." + std::string(to_string(config.counts));
  key.workgroup_size = workgroup_size(ctx, config);
  return key;
}

// The counts and the edge table are each bound whole (they cannot be windowed as the samples are): refuse
// a histogram whose bins need more than one binding before anything is allocated or recorded.
void check_bins_fit(const Context& ctx, const HistogramBins& bins, const core::EdgeTable& table, uint32_t cbytes) {
  const uint64_t most = impl_of(ctx).max_binding_bytes;
  const uint64_t counts_bytes = uint64_t{bins.num_bins()} * cbytes;
  const uint64_t table_bytes = table.words.size() * 4;
  if (counts_bytes > most || table_bytes > most)
    throw Error(Errc::too_large, std::to_string(bins.num_bins()) + " histogram bins need " +
                                     std::to_string(std::max(counts_bytes, table_bytes)) +
                                     " bytes of counts or edges in one binding; this device binds at most " +
                                     std::to_string(most) + " bytes (maxStorageBufferRange)");
}

}  // namespace

TempRequirements histogram_temp_requirements(const Context& ctx, const HistogramBins& bins,
                                             const HistogramConfig& config) {
  const core::EdgeTable table = core::to_edge_table(bins, config.type, config.last_bin_closed);
  check_bins_fit(ctx, bins, table, count_bytes(config.counts));
  TempRequirements req;
  req.size = std::max<VkDeviceSize>(4, table.words.size() * 4);
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
  const core::EdgeTable table = core::to_edge_table(args.bins, config.type, config.last_bin_closed);
  const PipelineKey key = key_of(ctx, config);
  const uint32_t num_bins = args.bins.num_bins();
  const uint32_t cbytes = count_bytes(config.counts);
  check_bins_fit(ctx, args.bins, table, cbytes);
  const uint64_t table_bytes = table.words.size() * 4;
  const uint32_t sbytes = table.element_bytes;
  const uint64_t sample_bytes = args.count * sbytes;

  vk::check_view("counts", args.counts, num_bins, cbytes, "the histogram has bins:");
  if (!config.accumulate && !(args.counts.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
    throw Error(Errc::missing_usage, "counts buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which zeroing it "
                                     "(vkCmdFillBuffer) needs; add it or set HistogramConfig::accumulate");
  if (table_bytes > 0) {
    vk::check_view("temp", args.temp, table.edges(), sbytes, "the edge table needs");
    if (!(args.temp.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
      throw Error(Errc::missing_usage, "temp buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which writing the "
                                       "edge table (vkCmdUpdateBuffer) needs (histogram_temp_requirements)");
    if (vk::overlaps(args.temp, table_bytes, args.counts, uint64_t{num_bins} * cbytes))
      throw Error(Errc::invalid_argument, "temp overlaps the counts; give them disjoint ranges");
  }
  if (args.count > 0) {
    vk::check_view("input", args.input, args.count, sbytes, "the histogram needs");
    if (vk::overlaps(args.input, sample_bytes, args.counts, uint64_t{num_bins} * cbytes))
      throw Error(Errc::invalid_argument, "the counts overlap the input samples; give them disjoint ranges");
    if (table_bytes > 0 && vk::overlaps(args.input, sample_bytes, args.temp, table_bytes))
      throw Error(Errc::invalid_argument, "temp overlaps the input samples; give them disjoint ranges");
  }

  // Zero the counts and write the edge table (at most 65536 bytes per vkCmdUpdateBuffer).
  if (!config.accumulate)
    vkCmdFillBuffer(cmd, args.counts.buffer, args.counts.offset, uint64_t{num_bins} * cbytes, 0);
  for (uint64_t done = 0; done < table_bytes; done += 65536) {
    const uint64_t len = std::min<uint64_t>(65536, table_bytes - done);
    vkCmdUpdateBuffer(cmd, args.temp.buffer, args.temp.offset + done, len,
                      reinterpret_cast<const std::byte*>(table.words.data()) + done);
  }
  vk::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  const IndirectCount* count_from = args.count_from ? &*args.count_from : nullptr;
  if (count_from) {
    vk::check_view("count_from.buffer", count_from->buffer, count_from->is_64bit ? 2 : 1, 4, "the count takes");
    if (vk::overlaps(count_from->buffer, 8, args.counts, uint64_t{num_bins} * cbytes))
      throw Error(Errc::invalid_argument, "count_from.buffer overlaps the counts; give them disjoint ranges");
    if (count_from->status.buffer != VK_NULL_HANDLE) {
      vk::check_view("count_from.status", count_from->status, 1, 4, "the status takes");
      if (vk::overlaps(count_from->status, 4, args.counts, uint64_t{num_bins} * cbytes) ||
          (args.count > 0 && vk::overlaps(count_from->status, 4, args.input, sample_bytes)))
        throw Error(Errc::invalid_argument, "count_from.status overlaps the counts or the input");
    }
  }
  const bool status = count_from && count_from->status.buffer != VK_NULL_HANDLE;
  // With a count in GPU memory the status word is written even when no sample can be counted.
  if ((args.count == 0 || table.searchable == 0) && !status) return;

  Context::Impl& impl = impl_of(ctx);
  const bool even = [&] {  // equal widths: the kernel may start from an arithmetic candidate
    const auto& e = args.bins.edges;
    if (!std::isfinite(e.front()) || !std::isfinite(e.back()) || !(e.front() < e.back())) return false;
    return HistogramBins::even(num_bins, e.front(), e.back()).edges == e;
  }();
  const double lower = args.bins.edges.front();
  const double scale = num_bins / (args.bins.edges.back() - lower);
  uint32_t flags = (even ? 1u : 0u) | (table.check_upper ? 2u : 0u) | (config.last_bin_closed ? 4u : 0u) |
                   (num_bins <= kHistogramSharedBins ? 8u : 0u) |
                   (count_from ? 16u | (count_from->is_64bit ? 32u : 0u) : 0u);
  // No sample can count: the kernel then only sets the status word (its window of 0 samples).
  const uint64_t counted = table.searchable == 0 ? 0 : args.count;
  const vk::Binding counts = vk::bind_elements(ctx, args.counts, 0, num_bins, cbytes);
  const vk::Binding edges =  // no table when no edge is a sample value; the kernel then reads none
      table.words.empty() ? counts : vk::bind_elements(ctx, args.temp, 0, table.edges(), sbytes);
  const uint64_t window = impl.window_elements(sbytes);
  const uint32_t w = key.workgroup_size;
  const vk::Binding words = count_from ? vk::bind_elements(ctx, count_from->buffer, 0, count_from->is_64bit ? 2 : 1, 4)
                                       : counts;  // unread
  const vk::Binding status_word = status ? vk::bind_elements(ctx, count_from->status, 0, 1, 4) : counts;  // unwritten
  for (uint64_t start = 0; start < counted || (start == 0 && status); start += window) {
    const uint64_t len = std::min(window, counted - start);
    if (start > 0)  // windows add to the same counts (and read the count words the first one set beside the status)
      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const vk::Binding src = len ? vk::bind_elements(ctx, args.input, start, len, sbytes) : counts;  // unread when empty
    const uint32_t groups = static_cast<uint32_t>(
        std::max<uint64_t>(1, std::min<uint64_t>({(len + w - 1) / w, kMaxGroups, impl.max_groups_x})));
    const float lower_f = static_cast<float>(lower), scale_f = static_cast<float>(scale);
    const uint32_t params[16] = {static_cast<uint32_t>(len), src.element_offset, counts.element_offset,
                                 edges.element_offset, num_bins, std::max<uint32_t>(table.searchable, 1),
                                 flags | (status && start == 0 ? 64u : 0u), std::bit_cast<uint32_t>(lower_f),
                                 std::bit_cast<uint32_t>(scale_f), groups, words.element_offset,
                                 static_cast<uint32_t>(start), static_cast<uint32_t>(start >> 32),
                                 static_cast<uint32_t>(args.count), static_cast<uint32_t>(args.count >> 32),
                                 status_word.element_offset};
    const VkDescriptorBufferInfo infos[5] = {src.info, counts.info, edges.info, words.info, status_word.info};
    impl.record_dispatch(cmd, key, infos, params, groups, 1);
  }
}

std::vector<uint64_t> histogram_bytes(const Context& ctx, std::span<const std::byte> input, const HistogramBins& bins,
                                      const HistogramConfig& config) {
  const uint32_t sbytes = element_size(config.type);
  if (input.size() % sbytes != 0)
    throw Error(Errc::invalid_argument, "histogram input of " + std::to_string(input.size()) +
                                            " bytes is not a whole number of " + std::to_string(sbytes) +
                                            "-byte samples");
  const uint64_t count = input.size() / sbytes;
  const TempRequirements req = histogram_temp_requirements(ctx, bins, config);  // checks the bins
  const uint32_t cbytes = count_bytes(config.counts);
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
  std::vector<uint64_t> out(num_bins);
  for (uint32_t i = 0; i < num_bins; ++i) {
    if (cbytes == 8) {
      std::memcpy(&out[i], static_cast<const std::byte*>(counts.mapped()) + size_t{i} * 8, 8);
    } else {
      uint32_t v;
      std::memcpy(&v, static_cast<const std::byte*>(counts.mapped()) + size_t{i} * 4, 4);
      out[i] = v;
    }
  }
  return out;
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
