// The OpenGL histogram as gpuscan::gl::Plan<primitive::Histogram> runs it (src/gl/plan.cpp). The free calls of
// gpuscan/gl.hpp (record_histogram, histogram_temp_requirements, histogram) are conveniences over that plan.
#pragma once

#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {

using HistogramBuffers = Plan<primitive::Histogram>::Buffers;

// The edge table's room (core::HistogramPlan::temp_bytes); checks the bins and the counts' type.
TempRequirements histogram_temp(const Context& ctx, const primitive::Histogram& h);
// The caller's buffers checked, then core::histogram_program issued by GL's executor.
void histogram_issue(const Context& ctx, const primitive::Histogram& h, const HistogramBuffers& b);

}  // namespace gpuscan::gl
