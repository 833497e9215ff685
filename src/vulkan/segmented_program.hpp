// The segmented scan's program, for the primitives that run one as a step of theirs (segmented
// reductions and scans by offsets); and Plan<primitive::SegmentedScan>'s part (src/vulkan/plan.cpp), under
// the free calls of gpuscan/vulkan/segmented.hpp.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "core/program.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/segmented.hpp"

namespace gpuscan::vk {

// The program record_segmented_scan records for `count` values with `heads` (core::SegBuffer's buffers);
// checks the config and the count as it does.
core::Program segmented_scan_program(const Context& ctx, uint64_t count, const ScanConfig& config, SegmentHeads heads);

using SegmentedScanBuffers = Plan<primitive::SegmentedScan>::Buffers;
// Temp for up to `max_count` values, whatever the heads (their unit sizes the windows).
TempRequirements segmented_scan_temp(const Context& ctx, const primitive::SegmentedScan& s, uint64_t max_count,
                                     bool indirect);
std::string segmented_scan_describe(const Context& ctx, const primitive::SegmentedScan& s, uint64_t count);
// Builds every pipeline a record of 0 to limits.max_count values needs.
void segmented_scan_prepare(const Context& ctx, const primitive::SegmentedScan& s, const PlanLimits& limits);
// The caller's buffers checked, then the plan recorded into `cmd`.
void segmented_scan_record(const Context& ctx, VkCommandBuffer cmd, const primitive::SegmentedScan& s,
                           const SegmentedScanBuffers& b);

}  // namespace gpuscan::vk
