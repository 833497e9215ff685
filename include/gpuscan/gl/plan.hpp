// Plan objects on OpenGL: gpuscan::Plan's shape (gpuscan/vulkan/plan.hpp; descriptions in gpuscan/plan.hpp),
// issuing into the GL context current on the calling thread instead of recording into a command buffer.
//
//   gpuscan::gl::Plan scan(ctx, gpuscan::primitive::Scan{}, {.max_count = 1u << 20});
//   const auto req = scan.temp_requirements();       // create a buffer of req.size bytes, once
//   scan.record({.count = n, .input = {in}, .output = {out}, .temp = {tmp}});   // GL buffer names
//
// What OpenGL cannot do is refused when the plan is created (Errc::unsupported, naming what is missing):
// the single-pass algorithms, the by-offsets segmented scan, a count from GPU memory for segmented scans
// and compaction, and compaction by keys. Creating a plan checks the description and, with
// PlanLimits::prepare, compiles every GL program a record of up to max_count elements needs (for
// vector-aligned ranges). The Context must outlive the plan and be current on the thread that records.
#pragma once

#include <cstdint>
#include <string>

#include "gpuscan/gl.hpp"
#include "gpuscan/plan.hpp"

namespace gpuscan::gl {

template <class P>
class Plan {
 public:
  using Description = P;
  using Buffers = typename P::template Buffers<BufferView, IndirectCount>;
  using Input = typename P::Input;
  using Output = typename P::Output;

  Plan(const Context& ctx, P description, PlanLimits limits);

  const P& description() const noexcept { return description_; }
  const PlanLimits& limits() const noexcept { return limits_; }
  const Context& context() const noexcept { return *ctx_; }
  TempRequirements temp_requirements() const noexcept { return temp_; }

  // As gpuscan::Plan::describe.
  std::string describe(uint64_t count) const;

  // Issues the primitive (the barrier contract of its record call: record_scan, record_sort, ...).
  void record(const Buffers& buffers) const;

  // Upload, issue, download; blocks. With `gpu_ns`, the GPU time of the primitive's commands (timestamp
  // queries).
  Output run(const Input& input, double* gpu_ns = nullptr) const;

 private:
  void issue(const Buffers& buffers, double* gpu_ns) const;

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

}  // namespace gpuscan::gl
