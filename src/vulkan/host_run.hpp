// The Vulkan engine of core::run_on_host (core/host_run.hpp): plans run on host data.
#pragma once

#include <functional>
#include <span>

#include "core/host_run.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan::vk {

using HostRecord = std::function<void(VkCommandBuffer, std::span<const BufferView> views, const BufferView& temp)>;

// Allocates run.buffers in device-local memory and `temp`, fills them through one staging buffer (zeros
// past each upload), records `record` over their views, copies the downloaded ones back, submits and
// waits. With `gpu_ns`, the GPU time of `record`'s commands alone (0 without timestamps).
core::Downloads run_on_host(const Context& ctx, const core::HostRun& run, const TempRequirements& temp,
                            const HostRecord& record, double* gpu_ns);

}  // namespace gpuscan::vk
