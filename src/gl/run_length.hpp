// Run-length encoding on OpenGL as gpuscan::gl::Plan<primitive::RunLength> runs it (src/gl/plan.cpp). The
// free calls of gpuscan/gl.hpp (record_run_length_encode, record_non_trivial_runs,
// run_length_temp_requirements) are conveniences over that plan.
#pragma once

#include <cstdint>

#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {

using RunLengthBuffers = Plan<primitive::RunLength>::Buffers;

// The compaction's temp and the indices and lengths pass's words after it, for up to `max_count` elements;
// checks the config and the types GL has.
TempRequirements run_length_temp(const Context& ctx, const primitive::RunLength& r, uint64_t max_count);
// The caller's buffers checked, then the indexed compaction and the lengths pass issued.
void run_length_issue(const Context& ctx, const primitive::RunLength& r, const RunLengthBuffers& b);

}  // namespace gpuscan::gl
