// gpuscan::gl::Plan: a table of each primitive's plan part (gl/record.hpp, sort.hpp, ...: temp, describe,
// issue), and the GL engine of the one host-data path (core/host_run.hpp). The free calls of gpuscan/gl.hpp
// are conveniences over these plans.
#include "gpuscan/gl/plan.hpp"

#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/dry_run.hpp"
#include "core/host_run.hpp"
#include "core/plan_checks.hpp"
#include "core/windows.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/histogram.hpp"
#include "gl/run_length.hpp"
#include "gl/segment_offsets.hpp"
#include "gl/segmented_program.hpp"
#include "gl/sort.hpp"
#include "gl/record.hpp"
#include "gl/timer.hpp"

namespace gpuscan::gl {

namespace {

namespace pr = primitive;

template <class P>
TempRequirements temp_of(const Context& ctx, const P& p, const PlanLimits& l) {
  const uint64_t n = l.max_count;
  const bool indirect = l.count_from_gpu;
  if constexpr (std::is_same_v<P, pr::Scan>) return scan_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::Reduce>) return reduce_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::SegmentedScan>) return segmented_scan_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::SegmentedReduce>) return segmented_reduce_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::Select>) return compact_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::RunLength>) return run_length_temp(ctx, p, n);
  else if constexpr (std::is_same_v<P, pr::Sort>) return sort_temp(ctx, p, n, indirect);
  else if constexpr (std::is_same_v<P, pr::Histogram>) return histogram_temp(ctx, p);
  else return {};
}

// The GL engine of core::run_on_host: one buffer object per used buffer, created with its upload (zeros
// past it), and the downloaded ones read back after the primitive's writes are made visible.
template <class Record>
core::Downloads run_on_host(Context::Impl& impl, const core::HostRun& run, const TempRequirements& temp,
                            Record&& record) {
  std::vector<std::unique_ptr<OwnedBuffer>> owned(run.buffers.size());
  std::vector<BufferView> views(run.buffers.size());
  for (size_t i = 0; i < run.buffers.size(); ++i) {
    const core::HostBuffer& b = run.buffers[i];
    if (b.bytes == 0) continue;
    std::vector<std::byte> initial;
    const void* data = b.upload.data();
    if (b.upload.size() < b.bytes) {
      initial.assign(b.bytes, std::byte{0});
      if (!b.upload.empty()) std::memcpy(initial.data(), b.upload.data(), b.upload.size());
      data = initial.data();
    }
    owned[i] = std::make_unique<OwnedBuffer>(impl.gl, b.bytes, data);
    views[i] = owned[i]->view();
  }
  const OwnedBuffer temp_buffer(impl.gl, temp.size);
  record(std::span<const BufferView>(views), temp_buffer.view());
  impl.gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  core::Downloads downloads(run.buffers.size());
  for (size_t i = 0; i < run.buffers.size(); ++i) {
    if (!run.buffers[i].download || run.buffers[i].bytes == 0) continue;
    downloads[i].resize(run.buffers[i].bytes);
    owned[i]->read(downloads[i].data(), run.buffers[i].bytes);
  }
  impl.check_error("reading a plan's results");
  return downloads;
}

// A stand-in buffer name for a plan's dry runs: never used (gl::execute builds or collects the program
// instead, and the checks of the caller's buffers are skipped).
BufferView stand_in_view(int i) { return {static_cast<uint32_t>(i), 0}; }

}  // namespace

template <class P>
Plan<P>::Plan(const Context& ctx, P description, PlanLimits limits)
    : ctx_(&ctx), description_(std::move(description)), limits_(limits) {
  impl_of(ctx).check_current();
  if constexpr (std::is_same_v<P, pr::SegmentedScanByOffsets>)
    throw Error(Errc::unsupported, "OpenGL has no segmented scan by offsets (Vulkan only)");
  constexpr bool counts_from_gpu = !std::is_same_v<P, pr::SegmentedScan> && !std::is_same_v<P, pr::SegmentedReduce> &&
                                   !std::is_same_v<P, pr::Select> && !std::is_same_v<P, pr::RunLength>;
  core::check_description(description_, limits_, counts_from_gpu, "OpenGL");
  if constexpr (std::is_same_v<P, pr::Select>) {
    if (description_.flags_kind != SegmentHeads::flags)
      throw Error(Errc::unsupported, "compaction by keys is Vulkan only; OpenGL compacts by u32 flags");
  }
  temp_ = temp_of(ctx, description_, limits_);  // checks the description and the count
  if (limits_.prepare && limits_.max_count > 0) {
    // Every program a record of up to max_count elements needs, compiled now: the records of the counts
    // where the shape changes (tile and window boundaries), over stand-in buffer names, issue nothing.
    const uint32_t esize =
        core::input_element_bytes(description_, [&](const CustomOp& op) { return compile_custom_op(ctx, op); });
    core::DryRun dry(core::DryRun::Mode::build);
    for (const uint64_t count : core::boundary_counts(limits_.max_count, impl_of(ctx).max_binding_bytes / esize))
      issue(core::stand_in_buffers<Buffers>(description_, limits_, count, stand_in_view), nullptr);
  }
}

template <class P>
std::string Plan<P>::describe(uint64_t count) const {
  const Context& ctx = *ctx_;
  const P& p = description_;
  if constexpr (std::is_same_v<P, pr::Scan>) return scan_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::Reduce>) return reduce_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::SegmentedScan>) return segmented_scan_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::Select>) return compact_describe(ctx, p, count);
  else if constexpr (std::is_same_v<P, pr::Sort>) return sort_describe(ctx, p, count);
  else {
    // The programs a record would execute, collected instead of issued (core/dry_run.hpp).
    core::DryRun dry(core::DryRun::Mode::list);
    issue(core::stand_in_buffers<Buffers>(p, limits_, count, stand_in_view), nullptr);
    return core::list_programs(dry.programs());
  }
}

template <class P>
void Plan<P>::record(const Buffers& b) const {
  issue(b, nullptr);
}

template <class P>
void Plan<P>::issue(const Buffers& b, double* gpu_ns) const {
  core::check_record(description_, limits_, b);
  const Context& ctx = *ctx_;
  Context::Impl& impl = impl_of(ctx);
  const P& p = description_;
  if constexpr (std::is_same_v<P, pr::Scan>) {
    record_scan_timed(ctx, {p.config, b.count, b.input, b.output, b.temp, b.initial_bits, b.count_from}, gpu_ns);
  } else if constexpr (std::is_same_v<P, pr::Reduce>) {
    record_reduce_timed(ctx, {p.config, b.count, b.input, b.output, b.temp, b.count_from}, gpu_ns);
  } else if constexpr (std::is_same_v<P, pr::SegmentedScan>) {
    timed(impl, gpu_ns, [&] { segmented_scan_issue(ctx, p, b); });
  } else if constexpr (std::is_same_v<P, pr::SegmentedReduce>) {
    timed(impl, gpu_ns, [&] { segmented_reduce_issue(ctx, p, b); });
  } else if constexpr (std::is_same_v<P, pr::Select>) {
    const SelectArgs args{p.config, b.count, b.input, b.flags, b.predicate, b.output, b.count_out, b.temp};
    timed(impl, gpu_ns, [&] { compact_issue(ctx, p, args); });
  } else if constexpr (std::is_same_v<P, pr::RunLength>) {
    timed(impl, gpu_ns, [&] { run_length_issue(ctx, p, b); });
  } else if constexpr (std::is_same_v<P, pr::Sort>) {
    timed(impl, gpu_ns, [&] { sort_issue(ctx, p, b); });
  } else if constexpr (std::is_same_v<P, pr::Histogram>) {
    timed(impl, gpu_ns, [&] { histogram_issue(ctx, p, b); });
  }
}

template <class P>
typename Plan<P>::Output Plan<P>::run(const Input& input, double* gpu_ns) const {
  if (gpu_ns) *gpu_ns = 0;
  core::check_run(limits_);
  Context::Impl& impl = impl_of(*ctx_);
  impl.check_current();
  const uint32_t esize =
      core::input_element_bytes(description_, [&](const CustomOp& op) { return compile_custom_op(*ctx_, op); });
  return core::run_on_host<P, Buffers, BufferView>(
      description_, input, esize, limits_.max_count, Errc::gl_error,
      [&](const core::HostRun& run, const auto& bind) {
        return run_on_host(impl, run, temp_, [&](std::span<const BufferView> views, const BufferView& temp) {
          issue(bind(views, temp), gpu_ns);
        });
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

}  // namespace gpuscan::gl
