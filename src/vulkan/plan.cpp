// gpuscan::Plan on Vulkan: a table of each primitive's plan part (vulkan/scan.hpp, sort.hpp, ...: temp,
// prepare, describe, record), and one host-data path for all (core/host_run.hpp, vulkan/host_run.cpp). The
// free calls of the public headers are conveniences over these plans.
#include "gpuscan/vulkan/plan.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpuscan/vulkan.hpp"
#include "core/dry_run.hpp"
#include "core/plan_checks.hpp"
#include "core/windows.hpp"
#include "vulkan/compact_indexed.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/histogram.hpp"
#include "vulkan/run_length.hpp"
#include "vulkan/scan.hpp"
#include "vulkan/segment_offsets.hpp"
#include "vulkan/segmented_program.hpp"
#include "vulkan/sort.hpp"
#include "vulkan/host_run.hpp"

namespace gpuscan {

namespace {

namespace pr = primitive;

template <class P>
TempRequirements temp_of(const Context& ctx, const P& p, const PlanLimits& l) {
  const uint64_t n = l.max_count;
  const bool indirect = l.count_from_gpu;
  if constexpr (std::is_same_v<P, pr::Scan>) return vk::scan_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::Reduce>) return vk::reduce_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::SegmentedScan>) return vk::segmented_scan_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::SegmentedScanByOffsets>) return vk::offsets_scan_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::SegmentedReduce>) return vk::segmented_reduce_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::Select>) return vk::compact_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::RunLength>) return vk::run_length_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::Sort>) return vk::sort_temp(ctx, p, n, indirect);
  else return vk::histogram_temp(ctx, p);
}

template <class P>
void prepare(const Context& ctx, const P& p, const PlanLimits& l) {
  const uint64_t n = l.max_count;
  if constexpr (std::is_same_v<P, pr::Scan>) vk::scan_prepare(ctx, p, l);
  else if constexpr (std::is_same_v<P, pr::Reduce>) vk::reduce_prepare(ctx, p, l);
  else if constexpr (std::is_same_v<P, pr::SegmentedScan>) vk::segmented_scan_prepare(ctx, p, l);
  else if constexpr (std::is_same_v<P, pr::SegmentedReduce>) vk::segmented_reduce_prepare(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::Select>) vk::compact_prepare(ctx, p, l);
  else if constexpr (std::is_same_v<P, pr::RunLength>) vk::run_length_prepare(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::Sort>) vk::sort_prepare(ctx, p, n, l.count_from_gpu);
  else if constexpr (std::is_same_v<P, pr::Histogram>) vk::histogram_prepare(ctx, p);
}

// A stand-in buffer for a listing: a handle that is never used (vk::execute collects the program
// instead), room for any count, every usage the checks may ask for.
BufferView stand_in_view(int i) {
  VkBuffer handle{};  // a pointer or a 64-bit integer, as the platform defines non-dispatchable handles
  const uint64_t bits = static_cast<uint64_t>(i);
  static_assert(sizeof handle == sizeof bits);
  std::memcpy(&handle, &bits, sizeof handle);
  constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  return {handle, VkDeviceSize{1} << 60, usage, 0};
}

// The command buffer a listing passes to the record calls, which refuse a null one; nothing is recorded
// into it.
VkCommandBuffer dry_run_command_buffer() { return reinterpret_cast<VkCommandBuffer>(uintptr_t{1}); }

}  // namespace

template <class P>
Plan<P>::Plan(const Context& ctx, P description, PlanLimits limits)
    : ctx_(&ctx), description_(std::move(description)), limits_(limits) {
  constexpr bool counts_from_gpu = !std::is_same_v<P, pr::SegmentedScanByOffsets> &&
                                   !std::is_same_v<P, pr::SegmentedReduce> && !std::is_same_v<P, pr::RunLength>;
  core::check_description(description_, limits_, counts_from_gpu, "Vulkan");
  temp_ = temp_of(ctx, description_, limits_);  // checks the description and the count
  if constexpr (std::is_same_v<P, pr::Select>) {
    if (description_.partition) vk::check_partition(ctx, description_.config);
  }
  if (!limits_.prepare) return;
  if constexpr (std::is_same_v<P, pr::SegmentedScanByOffsets>) {
    // No prepare_* walk of its own: records of the counts where its shape changes, in a dry run that
    // builds the pipelines and records nothing (core/dry_run.hpp).
    core::DryRun dry(core::DryRun::Mode::build);
    const uint64_t window = impl_of(ctx).window_elements(element_size(description_.config.type));
    for (const uint64_t count : core::boundary_counts(limits_.max_count, window))
      issue(dry_run_command_buffer(), core::stand_in_buffers<Buffers>(description_, limits_, count, stand_in_view));
  } else {
    prepare(ctx, description_, limits_);
  }
}

template <class P>
std::string Plan<P>::describe(uint64_t count) const {
  const Context& ctx = *ctx_;
  const P& p = description_;
  if constexpr (std::is_same_v<P, pr::Scan>) return vk::scan_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::Reduce>) return vk::reduce_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::SegmentedScan>) return vk::segmented_scan_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::Select>) return vk::compact_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::Sort>) return vk::sort_describe(ctx, p, count);
  else {
    // The programs a record would execute, collected instead of recorded (core/dry_run.hpp).
    core::DryRun dry(core::DryRun::Mode::list);
    issue(dry_run_command_buffer(), core::stand_in_buffers<Buffers>(p, limits_, count, stand_in_view));
    return core::list_programs(dry.programs());
  }
}

template <class P>
void Plan<P>::record(VkCommandBuffer cmd, const Buffers& b) const {
  core::check_record(description_, limits_, b);
  issue(cmd, b);
}

template <class P>
void Plan<P>::issue(VkCommandBuffer cmd, const Buffers& b) const {
  const Context& ctx = *ctx_;
  const P& p = description_;
  if constexpr (std::is_same_v<P, pr::Scan>) {
    vk::scan_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::Reduce>) {
    vk::reduce_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::SegmentedScan>) {
    vk::segmented_scan_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::SegmentedScanByOffsets>) {
    vk::offsets_scan_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::SegmentedReduce>) {
    vk::segmented_reduce_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::Select>) {
    vk::compact_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::RunLength>) {
    vk::run_length_record(ctx, cmd, p, b);
  } else if constexpr (std::is_same_v<P, pr::Sort>) {
    vk::sort_record(ctx, cmd, p, b);
  } else {
    vk::histogram_record(ctx, cmd, p, b);
  }
}

template <class P>
typename Plan<P>::Output Plan<P>::run(const Input& input, double* gpu_ns) const {
  if (gpu_ns) *gpu_ns = 0;
  core::check_run(limits_);
  const uint32_t esize =
      core::input_element_bytes(description_, [&](const CustomOp& op) { return compile_custom_op(*ctx_, op); });
  return core::run_on_host<P, Buffers, BufferView>(
      description_, input, esize, limits_.max_count, Errc::vulkan_error,
      [&](const core::HostRun& run, const auto& bind) {
        return vk::run_on_host(
            *ctx_, run, temp_,
            [&](VkCommandBuffer cmd, std::span<const BufferView> views, const BufferView& temp) {
              record(cmd, bind(views, temp));
            },
            gpu_ns);
      });
}

template class Plan<primitive::Scan>;
template class Plan<primitive::Reduce>;
template class Plan<primitive::SegmentedScan>;
template class Plan<primitive::SegmentedScanByOffsets>;
template class Plan<primitive::SegmentedReduce>;
template class Plan<primitive::Select>;
template class Plan<primitive::RunLength>;
template class Plan<primitive::Sort>;
template class Plan<primitive::Histogram>;

}  // namespace gpuscan
