// The segmented scan's program, for the primitives that run one as a step of theirs (segmented
// reductions and scans by offsets).
#pragma once

#include <cstdint>

#include "core/program.hpp"
#include "gpuscan/vulkan/segmented.hpp"

namespace gpuscan::vk {

// The program record_segmented_scan records for `count` values with `heads` (core::SegBuffer's buffers);
// checks the config and the count as it does.
core::Program segmented_scan_program(const Context& ctx, uint64_t count, const ScanConfig& config, SegmentHeads heads);

}  // namespace gpuscan::vk
