// Plan objects on Vulkan (gpuscan/plan.hpp holds the primitives' descriptions; docs/plans.md is the guide).
//
//   gpuscan::Plan sort(ctx, gpuscan::primitive::Sort{.config = {.key_type = gpuscan::DataType::f32}},
//                      {.max_count = max_particles});     // at load time: every pipeline is built here
//   const gpuscan::TempRequirements req = sort.temp_requirements();   // allocate once
//   sort.record(cmd, {.count = n, .keys_in = depths, .keys_out = sorted, .temp = tmp});   // every frame
//
//   // or on host data, blocking (upload, record, download):
//   std::vector<float> k = {2.5f, -1.0f, 2.5f};
//   auto out = gpuscan::Plan(ctx, gpuscan::primitive::Sort{.config = {.key_type = gpuscan::DataType::f32}},
//                            {.max_count = k.size()}).run({.keys = std::as_bytes(std::span(k))});
//   // out.keys holds -1.0f, 2.5f, 2.5f
//
// A plan keeps a pointer to its Context, which must outlive it; plans are immutable once created, so one
// plan may be recorded from several threads at once (as the free calls may). The free record calls
// (record_scan, record_sort, ...) are conveniences over plans: each makes one for its call, so a plan's
// record and the free call record the same commands under the barrier contract that call documents.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "gpuscan/plan.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

template <class P>
class Plan {
 public:
  using Description = P;
  using Buffers = typename P::template Buffers<BufferView, IndirectCount>;
  using Input = typename P::Input;
  using Output = typename P::Output;

  // Checks the description against the device and the limits (what record would refuse for such a
  // call: Errc::invalid_argument, unsupported, too_large, ...) and, with limits.prepare, builds every
  // pipeline a record of 0 to limits.max_count elements needs (custom operators are compiled here too).
  Plan(const Context& ctx, P description, PlanLimits limits);

  const P& description() const noexcept { return description_; }
  const PlanLimits& limits() const noexcept { return limits_; }
  const Context& context() const noexcept { return *ctx_; }

  // Temporary storage for any record of this plan: size bytes at a multiple of alignment, with usage.
  TempRequirements temp_requirements() const noexcept { return temp_; }

  // The passes a record of `count` elements makes, one line each: for scans, reductions, segmented
  // scans, compaction and sorts their plan as `gpuscan info --n` prints it; for the others the dispatches,
  // barriers and fills the record would make (the by-offsets primitives with one segment per 1024 values).
  std::string describe(uint64_t count) const;

  // Records the primitive into `cmd` (recording state, from a pool of the context's queue family).
  // Errc::invalid_argument when buffers.count exceeds limits().max_count, or count_from is given to a plan
  // made without count_from_gpu (or the reverse); the primitive's own checks of every buffer follow.
  void record(VkCommandBuffer cmd, const Buffers& buffers) const;

  // Upload `input`, record, download: blocks until the GPU is done. The input's element count must be at
  // most limits().max_count. With `gpu_ns`, the GPU time of the primitive's own passes (0 where the queue
  // has no timestamps).
  Output run(const Input& input, double* gpu_ns = nullptr) const;

 private:
  void issue(VkCommandBuffer cmd, const Buffers& buffers) const;  // record's call, after its checks

  const Context* ctx_;
  P description_;
  PlanLimits limits_;
  TempRequirements temp_;
};

template <class P>
Plan(const Context&, P, PlanLimits) -> Plan<P>;

extern template class Plan<primitive::Scan>;
extern template class Plan<primitive::Reduce>;
extern template class Plan<primitive::SegmentedScan>;
extern template class Plan<primitive::SegmentedScanByOffsets>;
extern template class Plan<primitive::SegmentedReduce>;
extern template class Plan<primitive::Select>;
extern template class Plan<primitive::RunLength>;
extern template class Plan<primitive::Sort>;
extern template class Plan<primitive::Histogram>;

}  // namespace gpuscan
