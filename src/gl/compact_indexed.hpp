// Selections for gpuscan's own compositions on OpenGL (run-length encoding, src/gl/run_length.cpp), as
// src/vulkan/compact_indexed.hpp: a predicate of the kernels' own and the input index of every kept
// element, beside or instead of its value (shaders/common/compact.glsl, OUTPUTS).
#pragma once

#include <cstdint>

#include "core/run_length_plan.hpp"
#include "gpuscan/gl.hpp"

namespace gpuscan::gl {

struct IndexedSelect {
  uint32_t predicate = core::predicate_run_start;  // constant 6, or core::predicate_run_edge
  bool values = true;                        // also write the kept values to SelectArgs::output
  BufferView indices;                        // SelectArgs::count u32: each kept element's input index
};

// record_select_if with `how`: args.predicate is ignored; args.output is unused without values. Same
// barrier contract; the indices are written as the output is.
void record_select_indexed(const Context& ctx, const SelectArgs& args, const IndexedSelect& how);

}  // namespace gpuscan::gl
