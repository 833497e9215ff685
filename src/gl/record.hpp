// What the convenience calls need of the executor beyond the public record_* calls.
#pragma once

#include "gpuscan/gl.hpp"

namespace gpuscan::gl {

// record_scan, and with `gpu_ns` the GPU time of its dispatches from two GL_TIMESTAMP queries placed
// after the programs are built (not GL_TIME_ELAPSED: llvmpipe answers 1 ns for that). Waits for the
// result when timing.
void record_scan_timed(const Context& ctx, const ScanArgs& args, double* gpu_ns);
void record_reduce_timed(const Context& ctx, const ReduceArgs& args, double* gpu_ns);

}  // namespace gpuscan::gl
