// Checks and bindings of caller buffers shared by every recorded primitive (scans, compaction).
#pragma once

#include <cstdint>

#include "gpuscan/vulkan.hpp"

namespace gpuscan::vk {

// Throws the matching gpuscan::Error unless `view` is usable for `count` elements of `esize` bytes:
// a handle, STORAGE_BUFFER usage, an offset that is a multiple of esize, and room for count elements.
// `need` completes the message "... holds H elements from offset O (buffer size B bytes), <need> C".
void check_view(const char* what, const BufferView& view, uint64_t count, uint32_t esize,
                const char* need = "the scan needs");

// What temp must offer for a look-back state (single-pass scan and compaction): TRANSFER_DST, as it is
// cleared with vkCmdFillBuffer, and the storage-buffer offset alignment, as it is bound from its first byte.
TempRequirements look_back_temp_needs(const Context& ctx);

// Throws Errc::missing_usage / Errc::misaligned unless `temp` has need.usage and sits at a multiple of
// need.alignment; `who` names the operation that clears the state ("the single-pass scan").
void check_temp_needs(const BufferView& temp, const TempRequirements& need, const char* who);

// Whether `view`'s buffer can be reached through its device address (SHADER_DEVICE_ADDRESS usage), and a
// check that throws Errc::missing_usage, naming `what`, unless it can.
bool has_device_address(const BufferView& view);
void check_device_address(const char* what, const BufferView& view);

// The device address of element `first` of `view`: vkGetBufferDeviceAddress + view.offset + first·esize,
// in 64 bits. A stand-in view (no buffer) is taken to start at address 0, as aligned as any buffer.
uint64_t element_address(const Context& ctx, const BufferView& view, uint64_t first, uint32_t esize);

// Whether two byte ranges of the same buffer overlap.
bool overlaps(const BufferView& a, uint64_t a_bytes, const BufferView& b, uint64_t b_bytes);

struct Binding {
  VkDescriptorBufferInfo info;
  uint32_t element_offset;  // where element `first` sits inside the binding
};

// Binds `count` elements from element `first` of `view` at an offset rounded down to a multiple of the device's
// minStorageBufferOffsetAlignment and of esize; the shader adds element_offset back, so callers need only
// element-size alignment. Throws Errc::too_large past maxStorageBufferRange.
Binding bind_elements(const Context& ctx, const BufferView& view, uint64_t first, uint64_t count, uint32_t esize);

// A stand-in for a caller's buffer in the prepare_* calls' walks over a plan (which record nothing): no
// buffer, room and usage for anything, the range at `offset` bytes. Only the pipelines' keys depend on
// it, through the offsets bind_elements computes.
BufferView stand_in_view(VkDeviceSize offset = 0);

// The part of `view` from `byte_offset` bytes on (a plan's array inside the caller's temp).
inline BufferView sub_view(const BufferView& view, uint64_t byte_offset) {
  BufferView s = view;
  s.offset += byte_offset;
  return s;
}

}  // namespace gpuscan::vk
