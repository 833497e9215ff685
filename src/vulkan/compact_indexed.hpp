// Selections for gpuscan's own compositions (run-length encoding, src/vulkan/run_length.cpp): a
// predicate of the kernels' own and the input index of every kept element, beside or instead of its
// value (shaders/common/compact.glsl, OUTPUTS); the partition's refusals for plans; and Plan<primitive::Select>'s
// part.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "core/run_length_plan.hpp"
#include "gpuscan/vulkan/compact.hpp"
#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::vk {

// The kernels' PRED_RUN_START and PRED_RUN_EDGE (core/run_length_plan.hpp).
using core::predicate_run_edge;
using core::predicate_run_start;

struct IndexedSelect {
  uint32_t predicate = predicate_run_start;  // specialization constant 6
  bool values = true;                        // also write the kept values to SelectArgs::output
  BufferView indices;                        // SelectArgs::count u32: each kept element's input index
};

// record_select_if with `how`: args.predicate is ignored; args.output is unused (and may be empty)
// without values. The input must fit one binding (both predicates read a neighbour; Errc::too_large)
// and have fewer than 2^32 elements. Same barrier contract, indices written as the output.
void record_select_indexed(const Context& ctx, VkCommandBuffer cmd, const SelectArgs& args, const IndexedSelect& how);

// What a partition with `config` refuses whatever its count (the single-pass algorithm): what
// gpuscan::Plan checks when it is made without building its pipelines.
void check_partition(const Context& ctx, const CompactConfig& config);

// Compaction as Plan<primitive::Select> runs it (src/vulkan/plan.cpp); the free calls of
// gpuscan/vulkan/compact.hpp (record_select_if, ..., compact_temp_requirements, prepare_compact,
// describe_compact_plan) are conveniences over that plan.
using CompactBuffers = Plan<primitive::Select>::Buffers;
// Temp for up to `max_count` elements, the partition's plan included.
TempRequirements compact_temp(const Context& ctx, const primitive::Select& c, uint64_t max_count, bool indirect);
std::string compact_describe(const Context& ctx, const primitive::Select& c, uint64_t count);
// Builds every pipeline a record of 0 to limits.max_count elements needs.
void compact_prepare(const Context& ctx, const primitive::Select& c, const PlanLimits& limits);
// The caller's buffers checked, then the selection or partition recorded into `cmd`.
void compact_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Select& c, const CompactBuffers& b);

}  // namespace gpuscan::vk
