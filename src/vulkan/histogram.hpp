// The Vulkan histogram as gpuscan::Plan<primitive::Histogram> runs it (src/vulkan/plan.cpp). The free calls of
// gpuscan/vulkan/histogram.hpp are conveniences over that plan.
#pragma once

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::vk {

using HistogramBuffers = Plan<primitive::Histogram>::Buffers;

// The edge table's room (core::HistogramPlan::temp_bytes); checks the bins and the counts' type.
TempRequirements histogram_temp(const Context& ctx, const primitive::Histogram& h);
// Builds the one pipeline every histogram of h.config records; refuses what the device lacks.
void histogram_prepare(const Context& ctx, const primitive::Histogram& h);
// The caller's buffers checked, then core::histogram_program executed into `cmd`.
void histogram_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Histogram& h,
                      const HistogramBuffers& b);

}  // namespace gpuscan::vk
