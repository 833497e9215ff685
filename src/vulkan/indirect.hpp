// Counts in GPU memory on Vulkan (core/indirect.hpp): the checks that scans, reductions, compactions and
// sorts share (the indirect_count dispatch is core's: core::indirect_count_command).
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

}  // namespace gpuscan::vk
