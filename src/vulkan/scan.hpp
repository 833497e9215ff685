// Scans and reductions on Vulkan as gpuscan::Plan<primitive::Scan> and Plan<primitive::Reduce> run them
// (src/vulkan/plan.cpp). The free calls of gpuscan/vulkan/scan.hpp and reduce.hpp (record_scan,
// record_reduce, their *_temp_requirements, prepare_* and describe_*_plan) are conveniences over those plans.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/plan.hpp"

namespace gpuscan::vk {

using ScanBuffers = Plan<primitive::Scan>::Buffers;
using ReduceBuffers = Plan<primitive::Reduce>::Buffers;

// Temp for any record of up to `max_count` elements (whichever algorithm and addressing the record's
// offsets lead to); checks the config and the device.
TempRequirements scan_temp(const Context& ctx, const primitive::Scan& s, uint64_t max_count, bool indirect);
// Builds every pipeline a record of 0 to limits.max_count elements needs, as the limits describe them.
void scan_prepare(const Context& ctx, const primitive::Scan& s, const PlanLimits& limits);
// The algorithm, tile shape and plan of a scan of `count` elements.
std::string scan_describe(const Context& ctx, const primitive::Scan& s, uint64_t count);
// The caller's buffers checked, then the scan's program recorded into `cmd`.
void scan_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Scan& s, const ScanBuffers& b);

TempRequirements reduce_temp(const Context& ctx, const primitive::Reduce& r, uint64_t max_count, bool indirect);
void reduce_prepare(const Context& ctx, const primitive::Reduce& r, const PlanLimits& limits);
std::string reduce_describe(const Context& ctx, const primitive::Reduce& r, uint64_t count);
void reduce_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Reduce& r, const ReduceBuffers& b);

}  // namespace gpuscan::vk
