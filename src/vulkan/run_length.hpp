// Run-length encoding on Vulkan as gpuscan::Plan<primitive::RunLength> runs it (src/vulkan/plan.cpp). The
// free calls of gpuscan/vulkan/run_length.hpp are conveniences over that plan.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::vk {

using RunLengthBuffers = Plan<primitive::RunLength>::Buffers;

// The compaction's temp and the indices and lengths pass's words after it (core::run_length_layout), for
// up to `max_count` elements; checks the config and the device.
TempRequirements run_length_temp(const Context& ctx, const primitive::RunLength& r, uint64_t max_count);
// Builds the kernels of both forms (encode and non-trivial runs) for up to `max_count` elements.
void run_length_prepare(const Context& ctx, const primitive::RunLength& r, uint64_t max_count);
// The caller's buffers checked, then the indexed compaction and the lengths pass recorded into `cmd`.
void run_length_record(const Context& ctx, VkCommandBuffer cmd, const primitive::RunLength& r,
                       const RunLengthBuffers& b);

}  // namespace gpuscan::vk
