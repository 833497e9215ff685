// The Vulkan histogram: Plan<primitive::Histogram>'s part (vulkan/histogram.hpp: the checks of the caller's
// buffers, then core::histogram_program recorded by the executor), and the free calls of
// gpuscan/vulkan/histogram.hpp over that plan.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "core/histogram_plan.hpp"
#include "core/plan_checks.hpp"
#include "gpuscan/vulkan/histogram.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "vulkan/histogram.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/indirect.hpp"

namespace gpuscan {
namespace {

PipelineKey key_of(const Context& ctx, const HistogramConfig& config) {
  core::histogram_count_bytes(config.counts);
  if (config.counts == DataType::u64 && !impl_of(ctx).single_pass_enabled)
    throw Error(Errc::unsupported, "u64 histogram counts need 64-bit buffer atomics (Vulkan 1.2 with "
                                   "shaderBufferInt64Atomics), which this device or Context lacks; use u32 counts");
  const std::string obstacle = impl_of(ctx).type_obstacle(config.type, false, "histograms");
  if (!obstacle.empty()) throw Error(Errc::unsupported, obstacle);
  return core::histogram_key(config, ctx.device_info().max_workgroup_invocations);
}

core::HistogramPlan plan(const Context& ctx, const HistogramBins& bins, const HistogramConfig& config, uint64_t count,
                         const IndirectCount* count_from) {
  core::HistogramPlan p = core::plan_histogram(bins, config, count, count_from != nullptr, count_from && count_from->is_64bit,
                              count_from && count_from->status.buffer != VK_NULL_HANDLE,
                              impl_of(ctx).max_binding_bytes, "maxStorageBufferRange");
  p.max_samples_per_invocation = impl_of(ctx).profile->histogram.max_samples_per_invocation;
  return p;
}

}  // namespace

}  // namespace gpuscan

namespace gpuscan::vk {

TempRequirements histogram_temp(const Context& ctx, const primitive::Histogram& h) {
  TempRequirements req;
  req.size = plan(ctx, h.bins, h.config, 0, nullptr).temp_bytes();
  req.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  req.alignment = 4;
  return req;
}

void histogram_prepare(const Context& ctx, const primitive::Histogram& h) { impl_of(ctx).pipeline(key_of(ctx, h.config)); }

void histogram_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Histogram& h,
                      const HistogramBuffers& b) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const HistogramConfig& config = h.config;
  const IndirectCount* count_from = b.count_from ? &*b.count_from : nullptr;
  const core::HistogramPlan p = plan(ctx, h.bins, config, b.count, count_from);
  const PipelineKey key = key_of(ctx, config);
  const uint32_t num_bins = p.num_bins;
  const uint32_t cbytes = p.count_bytes;
  const uint64_t table_bytes = p.table_bytes();
  const uint32_t sbytes = p.table.element_bytes;

  vk::check_view("counts", b.counts, num_bins, cbytes, "the histogram has bins:");
  if (!config.accumulate && !(b.counts.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
    throw Error(Errc::missing_usage, "counts buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which zeroing it "
                                     "(vkCmdFillBuffer) needs; add it or set HistogramConfig::accumulate");
  if (table_bytes > 0) {
    vk::check_view("temp", b.temp, p.table.edges(), sbytes, "the edge table needs");
    if (!(b.temp.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
      throw Error(Errc::missing_usage, "temp buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which writing the "
                                       "edge table (vkCmdUpdateBuffer) needs (histogram_temp_requirements)");
  }
  if (b.count > 0) vk::check_view("input", b.input, b.count, sbytes, "the histogram needs");
  if (count_from) {
    vk::check_view("count_from.buffer", count_from->buffer, count_from->is_64bit ? 2 : 1, 4, "the count takes");
    if (p.status) vk::check_view("count_from.status", count_from->status, 1, 4, "the status takes");
  }
  core::check_histogram_overlaps({vk::byte_range(b.input, p.sample_bytes(b.count)),
                                  vk::byte_range(b.counts, p.counts_bytes()), vk::byte_range(b.temp, table_bytes),
                                  count_from ? vk::byte_range(count_from->buffer, 8) : core::ByteRange{},
                                  p.status ? vk::byte_range(count_from->status, 4) : core::ByteRange{}});

  const BufferView buffers[] = {b.input, b.counts, b.temp, count_from ? count_from->buffer : BufferView{},
                                count_from ? count_from->status : BufferView{}};  // core::HistogramBuffer's order
  vk::execute(ctx, cmd,
              core::histogram_program(p, key, config.accumulate, b.count, count_from ? (count_from->is_64bit ? 2 : 1) : 0,
                                      impl_of(ctx).window_elements(sbytes), impl_of(ctx).max_groups_x),
              buffers);
}

}  // namespace gpuscan::vk

namespace gpuscan {

// The free calls: one plan each, made for this one call (its pipeline is built at the first record, then
// kept by the context).

TempRequirements histogram_temp_requirements(const Context& ctx, const HistogramBins& bins,
                                             const HistogramConfig& config) {
  return Plan(ctx, primitive::Histogram{config, bins}, core::one_call(0)).temp_requirements();
}

void prepare_histogram(const Context& ctx, const HistogramConfig& config) {
  Plan(ctx, primitive::Histogram{config, HistogramBins::even(1, 0, 1)}, {});  // the bins choose no kernel
}

void record_histogram(const Context& ctx, VkCommandBuffer cmd, const HistogramArgs& args) {
  Plan(ctx, primitive::Histogram{args.config, args.bins}, core::one_call(args.count, args.count_from.has_value()))
      .record(cmd, {args.count, args.input, args.counts, args.temp, args.count_from});
}

std::vector<uint64_t> histogram_bytes(const Context& ctx, std::span<const std::byte> input, const HistogramBins& bins,
                                      const HistogramConfig& config) {
  HistogramConfig fresh = config;
  fresh.accumulate = false;  // the counts start at zero on the host
  return Plan(ctx, primitive::Histogram{fresh, bins},
              core::one_call(core::histogram_sample_count(input.size(), config.type))).run({.samples = input});
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
