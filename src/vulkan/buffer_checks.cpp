#include "vulkan/buffer_checks.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <sstream>
#include <string>

#include "vulkan/context_impl.hpp"

namespace gpuscan::vk {

TempRequirements look_back_temp_needs(const Context& ctx) {
  TempRequirements need;
  need.usage |= VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  need.alignment = std::max<VkDeviceSize>(8, ctx.device_info().min_storage_buffer_offset_alignment);
  return need;
}

void check_temp_needs(const BufferView& temp, const TempRequirements& need, const char* who) {
  if ((temp.usage & need.usage) != need.usage)
    throw Error(Errc::missing_usage, std::string("temp buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which ") + who +
                                         " needs to clear its look-back state (TempRequirements::usage)");
  if (temp.offset % need.alignment != 0)
    throw Error(Errc::misaligned, "temp offset " + std::to_string(temp.offset) + " is not a multiple of " +
                                      std::to_string(need.alignment) + " (TempRequirements::alignment)");
}

void check_view(const char* what, const BufferView& view, uint64_t count, uint32_t esize, const char* need) {
  if (view.buffer == VK_NULL_HANDLE)
    throw Error(Errc::null_handle, std::string(what) + " buffer is VK_NULL_HANDLE");
  if (!(view.usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
    throw Error(Errc::missing_usage, std::string(what) +
                                         " buffer lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, which gpuscan's "
                                         "compute shaders need to access it");
  if (view.offset % esize != 0)
    throw Error(Errc::misaligned, std::string(what) + " offset " + std::to_string(view.offset) +
                                      " is not a multiple of the element size (" + std::to_string(esize) + " bytes)");
  const uint64_t holds = view.offset > view.buffer_size ? 0 : (view.buffer_size - view.offset) / esize;
  if (holds < count) {
    std::ostringstream msg;
    msg << what << " buffer holds " << holds << " elements from offset " << view.offset << " (buffer size "
        << view.buffer_size << " bytes), " << need << " " << count;
    throw Error(Errc::buffer_too_small, msg.str());
  }
}

bool has_device_address(const BufferView& view) {
  return (view.usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
}

void check_device_address(const char* what, const BufferView& view) {
  if (!has_device_address(view))
    throw Error(Errc::missing_usage, std::string(what) +
                                         " buffer lacks VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, which "
                                         "Addressing::device_address needs (or use Addressing::automatic)");
}

uint64_t element_address(const Context& ctx, const BufferView& view, uint64_t first, uint32_t esize) {
  const VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, nullptr, view.buffer};
  const uint64_t base = view.buffer == VK_NULL_HANDLE ? 0 : impl_of(ctx).fn.vkGetBufferDeviceAddress(ctx.device(), &info);
  return base + view.offset + first * esize;
}

BufferView stand_in_view(VkDeviceSize offset) {
  return {VK_NULL_HANDLE, UINT64_MAX, ~VkBufferUsageFlags{0}, offset};
}

bool overlaps(const BufferView& a, uint64_t a_bytes, const BufferView& b, uint64_t b_bytes) {
  return a.buffer == b.buffer && a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
}

Binding bind_elements(const Context& ctx, const BufferView& view, uint64_t first, uint64_t count, uint32_t esize) {
  const DeviceInfo& info = ctx.device_info();
  const uint64_t start = view.offset + first * esize;
  // A multiple of the element size too, so that the remainder is whole elements (custom operators' elements
  // may be 12 or 24 bytes; for the built-in types this is the device's alignment).
  const uint64_t align =
      std::lcm(info.min_storage_buffer_offset_alignment ? info.min_storage_buffer_offset_alignment : 1, uint64_t{esize});
  const uint64_t bound = start - start % align;
  const uint64_t bytes = start + std::max<uint64_t>(count, 1) * esize - bound;
  if (bytes > info.max_storage_buffer_range)
    throw Error(Errc::too_large, "a pass would bind " + std::to_string(bytes) + " bytes, more than the device's " +
                                     "maxStorageBufferRange of " + std::to_string(info.max_storage_buffer_range));
  return {{view.buffer, bound, bytes}, static_cast<uint32_t>((start - bound) / esize)};
}

BufferView sub_view(const BufferView& view, VkDeviceSize byte_offset) {
  BufferView s = view;
  s.offset += byte_offset;
  return s;
}

}  // namespace gpuscan::vk
