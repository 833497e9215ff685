// Counts in GPU memory on Vulkan (core/indirect.hpp): the checks and the indirect_count dispatch that
// scans, reductions and compactions share.
#pragma once

#include <cstdint>

#include "core/indirect.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

// `bytes` from view.offset, as core's checks see it.
core::ByteRange byte_range(const BufferView& view, uint64_t bytes);

// Throws unless `from` and its status word can be read (written) apart from `written` (the ranges the
// call writes, named `written_names` in the message), and, with `indirect_dispatch`, temp can hold
// dispatch commands (VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT); `who` names the call ("a scan"). Calls whose
// dispatches are all sized for the bound (the sort) read only the count words and pass false.
void check_indirect_count(const IndirectCount& from, const BufferView& temp, std::span<const core::ByteRange> written,
                          const char* written_names, const char* who, bool indirect_dispatch = true);

// Records the plan's indirect_count dispatch `d`: indirect_count.comp reads `from`, and writes every
// level's words into temp at d.aux (elements of `esize` bytes). `shape` holds what the plan was made
// for (bound, block sizes, levels); the offsets and max_groups_x are filled in here. `min_one_block`:
// every level runs at least one workgroup (reductions, compactions).
void record_indirect_count(const Context& ctx, VkCommandBuffer cmd, const core::Dispatch& d, const IndirectCount& from,
                           const BufferView& temp, uint32_t esize, core::IndirectCountParams shape, bool min_one_block);

}  // namespace gpuscan::vk
