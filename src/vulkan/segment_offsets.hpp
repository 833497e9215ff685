// Segments given by offsets on Vulkan, as gpuscan::Plan<primitive::SegmentedReduce> and
// Plan<primitive::SegmentedScanByOffsets> run them (src/vulkan/plan.cpp). The free calls of
// gpuscan/vulkan/segmented_reduce.hpp and segmented.hpp (record_segmented_reduce,
// record_segmented_scan_by_offsets, their *_temp_requirements, prepare_segmented_reduce) are conveniences
// over those plans.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::vk {

using SegmentedReduceBuffers = Plan<primitive::SegmentedReduce>::Buffers;
using OffsetsScanBuffers = Plan<primitive::SegmentedScanByOffsets>::Buffers;

// Temp for up to `max_count` values; checks the config and the device.
TempRequirements segmented_reduce_temp(const Context& ctx, const primitive::SegmentedReduce& r, uint64_t max_count);
// Builds every pipeline a reduction of up to `max_count` values records.
void segmented_reduce_prepare(const Context& ctx, const primitive::SegmentedReduce& r, uint64_t max_count);
// The caller's buffers checked, then the tiles, the scan of their totals and the crossing segments recorded.
void segmented_reduce_record(const Context& ctx, VkCommandBuffer cmd, const primitive::SegmentedReduce& r,
                             const SegmentedReduceBuffers& b);

// Temp for up to `max_count` values: the head flags and the segmented scan's.
TempRequirements offsets_scan_temp(const Context& ctx, const primitive::SegmentedScanByOffsets& s, uint64_t max_count);
// The caller's buffers checked, then the heads pass and the segmented scan recorded.
void offsets_scan_record(const Context& ctx, VkCommandBuffer cmd, const primitive::SegmentedScanByOffsets& s,
                         const OffsetsScanBuffers& b);

}  // namespace gpuscan::vk
