// Segmented reductions by offsets on OpenGL, as gpuscan::gl::Plan<primitive::SegmentedReduce> runs them
// (src/gl/plan.cpp). The free calls of gpuscan/gl.hpp (record_segmented_reduce,
// segmented_reduce_temp_requirements) are conveniences over that plan.
#pragma once

#include <cstdint>

#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {

using SegmentedReduceBuffers = Plan<primitive::SegmentedReduce>::Buffers;

// Temp for up to `max_count` values; checks the config.
TempRequirements segmented_reduce_temp(const Context& ctx, const primitive::SegmentedReduce& r, uint64_t max_count);
// The caller's buffers checked, then the tiles, the scan of their totals and the crossing segments issued.
void segmented_reduce_issue(const Context& ctx, const primitive::SegmentedReduce& r, const SegmentedReduceBuffers& b);

}  // namespace gpuscan::gl
