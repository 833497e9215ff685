// The scan's program, for the primitives that run one as a step of theirs (the radix sort's digit counts).
#pragma once

#include <cstdint>

#include "core/program.hpp"
#include "gpuscan/gl.hpp"

namespace gpuscan::gl {

// The program record_scan issues for `count` elements (core::PlanBuffer's buffers); checks the config as
// it does.
core::Program scan_program(const Context& ctx, uint64_t count, const ScanConfig& config);

}  // namespace gpuscan::gl
