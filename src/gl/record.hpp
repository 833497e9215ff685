// What the convenience calls need of the executor beyond the public record_* calls.
#pragma once

#include <span>
#include <string>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "gl/context_impl.hpp"
#include "gpuscan/gl.hpp"
#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {

// The plans' parts of scans, reductions and compaction (gl::Plan, src/gl/plan.cpp; the free calls of
// gpuscan/gl.hpp are conveniences over the plans): temp for up to `max_count` elements, and the listing
// `describe` gives.
TempRequirements scan_temp(const Context& ctx, const primitive::Scan& s, uint64_t max_count, bool indirect);
std::string scan_describe(const Context& ctx, const primitive::Scan& s, uint64_t count);
TempRequirements reduce_temp(const Context& ctx, const primitive::Reduce& r, uint64_t max_count, bool indirect);
std::string reduce_describe(const Context& ctx, const primitive::Reduce& r, uint64_t count);
TempRequirements compact_temp(const Context& ctx, const primitive::Select& c, uint64_t max_count);
std::string compact_describe(const Context& ctx, const primitive::Select& c, uint64_t count);
// The compaction of `args` as `c` says (by flags or a predicate, selection or partition).
void compact_issue(const Context& ctx, const primitive::Select& c, const SelectArgs& args);

// The scan's record, and with `gpu_ns` the GPU time of its dispatches from two GL_TIMESTAMP queries placed
// after the programs are built (not GL_TIME_ELAPSED: llvmpipe answers 1 ns for that). Waits for the
// result when timing.
void record_scan_timed(const Context& ctx, const ScanArgs& args, double* gpu_ns);
void record_reduce_timed(const Context& ctx, const ReduceArgs& args, double* gpu_ns);

// Errc::* unless the count (and its status word) exist, hold their words, and overlap none of `written`
// (named by `written_names` in the message).
void check_count_from(const Context::Impl& impl, const IndirectCount& from, std::span<const core::ByteRange> written,
                      const char* written_names);

}  // namespace gpuscan::gl
