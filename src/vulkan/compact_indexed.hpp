// Selections for gpuscan's own compositions (run-length encoding, src/vulkan/run_length.cpp): a
// predicate of the kernels' own and the input index of every kept element, beside or instead of its
// value (shaders/common/compact.glsl, OUTPUTS).
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/compact.hpp"

namespace gpuscan::vk {

// The kernels' PRED_RUN_EDGE: the first and the last element of every run of two or more equal elements.
inline constexpr uint32_t predicate_run_edge = 11;
// Their PRED_RUN_START (PredicateKind::run_start + 1).
inline constexpr uint32_t predicate_run_start = static_cast<uint32_t>(PredicateKind::run_start) + 1;

struct IndexedSelect {
  uint32_t predicate = predicate_run_start;  // specialization constant 6
  bool values = true;                        // also write the kept values to SelectArgs::output
  BufferView indices;                        // SelectArgs::count u32: each kept element's input index
};

// record_select_if with `how`: args.predicate is ignored; args.output is unused (and may be empty)
// without values. The input must fit one binding (both predicates read a neighbour; Errc::too_large)
// and have fewer than 2^32 elements. Same barrier contract, indices written as the output.
void record_select_indexed(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args, const IndexedSelect& how);

}  // namespace gpuscan::vk
