// The Vulkan backend of core::execute_program (core/execute.hpp): records a program into a command buffer.
#pragma once

#include <span>

#include "core/program.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

// Records `program` into `cmd` with its buffer i bound to buffers[i]. Barriers order exactly the kinds
// of command on either side (core::barrier_scope); one that ends the program orders its writes before
// compute, where the caller's barrier after the call takes over. With `cmd` VK_NULL_HANDLE it only builds the
// program's pipelines (the prepare_* calls, over stand-in buffers). The caller has checked the buffers
// (room, usage: TRANSFER_DST where the program fills or updates them).
void execute(const Context& ctx, VkCommandBuffer cmd, const core::Program& program, std::span<const BufferView> buffers);

}  // namespace gpuscan::vk
