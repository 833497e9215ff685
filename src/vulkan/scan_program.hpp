// The scan's program, for the primitives that run one as a step of theirs (the radix sort's digit counts).
#pragma once

#include <cstdint>

#include "core/program.hpp"
#include "gpuscan/vulkan/scan.hpp"

namespace gpuscan::vk {

// The program record_scan records for `count` elements (core::PlanBuffer's buffers), over vector-aligned
// ranges, in place (output == input) or not; checks the config as it does.
core::Program scan_program(const Context& ctx, uint64_t count, const ScanConfig& config, bool in_place);

}  // namespace gpuscan::vk
