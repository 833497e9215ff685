// The segmented scan's program, for the primitives that run one as a step of theirs (segmented
// reductions by offsets); and gl::Plan<primitive::SegmentedScan>'s part (src/gl/plan.cpp), under the free
// calls of gpuscan/gl.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "core/program.hpp"
#include "gpuscan/gl.hpp"
#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {

// The program record_segmented_scan issues for `count` values with `heads` (core::SegBuffer's buffers);
// checks the config as it does.
core::Program segmented_scan_program(const Context& ctx, uint64_t count, const ScanConfig& config, SegmentHeads heads);

using SegmentedScanBuffers = Plan<primitive::SegmentedScan>::Buffers;
// Temp for up to `max_count` values; checks the config.
TempRequirements segmented_scan_temp(const Context& ctx, const primitive::SegmentedScan& s, uint64_t max_count);
std::string segmented_scan_describe(const Context& ctx, const primitive::SegmentedScan& s, uint64_t count);
// The caller's buffers checked, then the plan issued.
void segmented_scan_issue(const Context& ctx, const primitive::SegmentedScan& s, const SegmentedScanBuffers& b);

}  // namespace gpuscan::gl
