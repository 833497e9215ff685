// Dispatches of the application's own kernels sized by a count on the GPU (a compaction's count_out, a
// run-length encoding's run count): record_indirect_args writes the VkDispatchIndirectCommand, so the
// count never goes through the host.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

struct IndirectArgs {
  // The count: a u32 (or with count.is_64bit a u64, low word first) at count.buffer.offset. Optional
  // count.status: a u32 set to 1 where the count was above `bound`, else 0.
  IndirectCount count;
  uint64_t bound = 0xFFFFFFFFu;        // counts above it are taken as it; at most 2^32 - 1
  uint32_t elements_per_workgroup = 1;  // the command's workgroups: ceil(min(count, bound) / this)
  BufferView command;  // 12 bytes at command.offset (a multiple of 4); STORAGE_BUFFER usage, and
                       // INDIRECT_BUFFER for the application's vkCmdDispatchIndirect
};

// Records one single-invocation dispatch that writes the VkDispatchIndirectCommand {x, y, 1} for
// g = ceil(min(count, bound) / elements_per_workgroup) workgroups: {g, 1, 1} while g fits
// maxComputeWorkGroupCount[0] (DeviceInfo::max_workgroup_count), else y rows of x (x·y >= g), which the
// kernel must read as workgroup gl_WorkGroupID.y · gl_NumWorkGroups.x + gl_WorkGroupID.x and skip past
// g - 1; {0, 0, 1} for none. Barrier contract as record_scan's: the count's writes visible to
// compute-shader reads before; afterwards the command (and the status word) is written by
// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT, so a barrier to
// VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT / VK_ACCESS_INDIRECT_COMMAND_READ_BIT goes before the application's
// vkCmdDispatchIndirect. Throws Errc::invalid_argument for elements_per_workgroup 0 or overlapping
// ranges, Errc::too_large for a bound of 2^32 or more, and check_view's errors for the buffers.
//
//   gpuscan::record_select_if(ctx, cmd, {..., .count_out = kept});            // how many survived
//   gpuscan::record_indirect_args(ctx, cmd, {.count = {.buffer = kept}, .elements_per_workgroup = 256,
//                                            .command = args});
//   // barrier: SHADER_WRITE -> INDIRECT_COMMAND_READ; then vkCmdDispatchIndirect(cmd, args.buffer, args.offset)
void record_indirect_args(const Context& ctx, VkCommandBuffer cmd, const IndirectArgs& args);

}  // namespace gpuscan
