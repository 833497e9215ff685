#include "vulkan/memory.hpp"

#include <algorithm>
#include <utility>

#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::vk {
namespace {

uint32_t find_memory_type(const Functions& fn, VkPhysicalDevice physical, uint32_t allowed, MemoryKind kind) {
  VkPhysicalDeviceMemoryProperties props;
  fn.vkGetPhysicalDeviceMemoryProperties(physical, &props);
  constexpr VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (kind == MemoryKind::host_readback)
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
      if ((allowed & (1u << i)) && (props.memoryTypes[i].propertyFlags & (host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)) ==
                                       (host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT))
        return i;
  const VkMemoryPropertyFlags want =
      kind == MemoryKind::device_local ? VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT} : host;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) return i;
  if (kind == MemoryKind::device_local)  // e.g. a CPU device without a DEVICE_LOCAL type: any will do
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
      if (allowed & (1u << i)) return i;
  throw Error(Errc::unsupported, "the device has no suitable memory type for a buffer");
}

}  // namespace

OwnedBuffer::OwnedBuffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryKind kind)
    : fn_(&impl_of(ctx).fn), device_(ctx.device()), size_(std::max<VkDeviceSize>(size, 4)), usage_(usage) {
  const Functions& fn = *fn_;
  const VkDevice device = device_;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size_;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(fn.vkCreateBuffer(device, &info, nullptr, &buffer_), "vkCreateBuffer");
  try {
    VkMemoryRequirements req;
    fn.vkGetBufferMemoryRequirements(device, buffer_, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = find_memory_type(fn, ctx.physical_device(), req.memoryTypeBits, kind);
    // A buffer reached through its device address needs memory allocated for that (bufferDeviceAddress).
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) alloc.pNext = &flags;
    check(fn.vkAllocateMemory(device, &alloc, nullptr, &memory_), "vkAllocateMemory");
    check(fn.vkBindBufferMemory(device, buffer_, memory_, 0), "vkBindBufferMemory");
    if (kind != MemoryKind::device_local)
      check(fn.vkMapMemory(device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  } catch (...) {
    reset();
    throw;
  }
}

OwnedBuffer& OwnedBuffer::operator=(OwnedBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    fn_ = std::exchange(other.fn_, nullptr);
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    usage_ = std::exchange(other.usage_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

void OwnedBuffer::reset() noexcept {
  if (device_ == VK_NULL_HANDLE) return;
  if (buffer_) fn_->vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_) fn_->vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

}  // namespace gpuscan::vk
