// The scan executor (record.cpp) as the other executors use it.
#pragma once

#include <cstdint>

#include "core/plan.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

// Records one dispatch of the scans' kernels -- the segmented scans' carry_save / carry_update between
// windows -- for config's type and operator, its slots bound to views (input, output, temp).
void record_scan_dispatch(const Context& ctx, VkCommandBuffer cmd, const core::Dispatch& d, const ScanConfig& config,
                          uint32_t workgroup_size, uint32_t vectors_per_lane, const BufferView* const views[3]);

}  // namespace gpuscan::vk
