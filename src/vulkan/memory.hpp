// A minimal owned buffer + memory pair for gpuscan's own allocations (convenience calls, tests, CLI).
// Callers of the recording API bring their own buffers and never need this.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

#include "gpuscan/vulkan.hpp"
#include "vulkan/functions.hpp"

namespace gpuscan::vk {

// host_readback: host-visible and coherent like host_visible, preferring a HOST_CACHED type (falling back
// to any host-visible one), for data the CPU reads back in bulk: uncached memory reads slowly.
enum class MemoryKind { device_local, host_visible, host_readback };

class OwnedBuffer {
 public:
  OwnedBuffer() = default;
  // Creates a buffer of `size` bytes (at least 4) with `usage`; host_visible and host_readback buffers
  // are mapped and coherent. With SHADER_DEVICE_ADDRESS usage its memory is allocated with
  // DEVICE_ADDRESS. Throws Errc::vulkan_error (e.g. VK_ERROR_OUT_OF_DEVICE_MEMORY).
  // The buffer keeps ctx's Vulkan functions: destroy it before ctx.
  OwnedBuffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryKind kind);
  OwnedBuffer(OwnedBuffer&& other) noexcept { *this = std::move(other); }
  OwnedBuffer& operator=(OwnedBuffer&& other) noexcept;
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  ~OwnedBuffer() { reset(); }

  VkBuffer handle() const noexcept { return buffer_; }
  VkDeviceSize size() const noexcept { return size_; }
  void* mapped() const noexcept { return mapped_; }
  // A view of the whole buffer from `offset` for the recording API.
  BufferView view(VkDeviceSize offset = 0) const noexcept { return {buffer_, size_, usage_, offset}; }

 private:
  void reset() noexcept;
  const Functions* fn_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkBufferUsageFlags usage_ = 0;
  void* mapped_ = nullptr;
};

}  // namespace gpuscan::vk
