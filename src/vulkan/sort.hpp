// The Vulkan radix sort as gpuscan::Plan<primitive::Sort> runs it (src/vulkan/plan.cpp). The free calls of
// gpuscan/vulkan/sort.hpp (record_sort, record_sort_pairs, sort_temp_requirements, prepare_sort,
// describe_sort_plan) are conveniences over that plan.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::vk {

using SortBuffers = Plan<primitive::Sort>::Buffers;

// Temp for up to `max_count` keys (a count from GPU memory with `indirect`); checks the config and the device.
TempRequirements sort_temp(const Context& ctx, const primitive::Sort& s, uint64_t max_count, bool indirect);
// Builds every pipeline a sort of up to `max_count` keys records.
void sort_prepare(const Context& ctx, const primitive::Sort& s, uint64_t max_count, bool indirect);
// The algorithm, passes and tile shape of a sort of `count` keys, with the count scan's plan.
std::string sort_describe(const Context& ctx, const primitive::Sort& s, uint64_t count);
// The caller's buffers checked, then the sort recorded into `cmd`: keys only, or pairs where
// s.config.value_bytes is not 0.
void sort_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Sort& s, const SortBuffers& b);

}  // namespace gpuscan::vk
