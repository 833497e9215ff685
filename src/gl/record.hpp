// What the convenience calls need of the executor beyond the public record_* calls.
#pragma once

#include <span>

#include "core/indirect.hpp"
#include "core/plan.hpp"
#include "gl/context_impl.hpp"
#include "gpuscan/gl.hpp"

namespace gpuscan::gl {

// record_scan, and with `gpu_ns` the GPU time of its dispatches from two GL_TIMESTAMP queries placed
// after the programs are built (not GL_TIME_ELAPSED: llvmpipe answers 1 ns for that). Waits for the
// result when timing.
void record_scan_timed(const Context& ctx, const ScanArgs& args, double* gpu_ns);
void record_reduce_timed(const Context& ctx, const ReduceArgs& args, double* gpu_ns);

// Errc::* unless the count (and its status word) exist, hold their words, and overlap none of `written`
// (named by `written_names` in the message).
void check_count_from(const Context::Impl& impl, const IndirectCount& from, std::span<const core::ByteRange> written,
                      const char* written_names);

}  // namespace gpuscan::gl
