// gpuscan::testkit on Vulkan (gpuscan/vulkan/testing.hpp): the library's own helpers, reached from outside
// it by the benchmarks.
#include "gpuscan/vulkan/testing.hpp"

#include <string>

#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/sort_stages.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::testkit {

Buffer::Buffer() noexcept = default;

Buffer::Buffer(const Context& ctx, VkDeviceSize bytes, VkBufferUsageFlags usage, Memory memory) {
  const vk::MemoryKind kind = memory == Memory::device_local   ? vk::MemoryKind::device_local
                              : memory == Memory::host_visible ? vk::MemoryKind::host_visible
                                                               : vk::MemoryKind::host_readback;
  buffer_ = std::make_unique<vk::OwnedBuffer>(ctx, bytes, usage, kind);
}

Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;
Buffer::~Buffer() = default;

VkBuffer Buffer::handle() const noexcept { return buffer_ ? buffer_->handle() : VK_NULL_HANDLE; }
VkDeviceSize Buffer::size() const noexcept { return buffer_ ? buffer_->size() : 0; }
void* Buffer::mapped() const noexcept { return buffer_ ? buffer_->mapped() : nullptr; }
BufferView Buffer::view(VkDeviceSize offset) const noexcept { return buffer_ ? buffer_->view(offset) : BufferView{}; }

void submit_and_wait(const Context& ctx, const std::function<void(VkCommandBuffer)>& record, SubmitTimes* times) {
  vk::SubmitTimes t;
  vk::submit_and_wait(ctx, record, times ? &t : nullptr);
  if (times) *times = {t.record, t.submit, t.wait, t.gpu};
}

void memory_barrier(const Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  vk::memory_barrier(ctx, cmd, src_stage, src_access, dst_stage, dst_access);
}

void copy_with_barrier(const Context& ctx, VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                       VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                       VkAccessFlags dst_access) {
  vk::copy_with_barrier(ctx, cmd, src, dst, bytes, src_stage, src_access, dst_stage, dst_access);
}

void add_kernel(const Context& ctx, const std::string& name, std::span<const uint32_t> spirv) {
  impl_of(ctx).add_module(name, spirv);
}

void record_kernel(const Context& ctx, VkCommandBuffer cmd, const std::string& name, const KernelConstants& constants,
                   std::span<const VkDescriptorBufferInfo> buffers, std::span<const uint32_t> push_words,
                   uint32_t groups_x, uint32_t groups_y) {
  if (buffers.size() > descriptor_bindings || push_words.size() > push_constant_words)
    throw Error(Errc::invalid_argument, "testkit::record_kernel: " + name + " with " + std::to_string(buffers.size()) +
                                            " buffers and " + std::to_string(push_words.size()) +
                                            " push words; gpuscan's pipeline layout has " +
                                            std::to_string(descriptor_bindings) + " and " +
                                            std::to_string(push_constant_words));
  PipelineKey key;
  key.variant = name;
  key.workgroup_size = constants.workgroup_size;
  key.use_aux = constants.aux;
  key.vectors_per_lane = constants.vectors_per_lane;
  impl_of(ctx).record_dispatch(cmd, key, buffers, push_words, groups_x, groups_y);
}

uint64_t window_elements(const Context& ctx, uint32_t element_bytes, bool device_address) {
  return impl_of(ctx).window_elements(element_bytes, device_address);
}

void record_sort_stages(const Context& ctx, VkCommandBuffer cmd, const SortPairsArgs& args, SortStages stages) {
  const vk::SortStages internal = stages == SortStages::counts            ? vk::SortStages::counts
                                  : stages == SortStages::counts_and_scan ? vk::SortStages::counts_and_scan
                                                                          : vk::SortStages::all;
  vk::record_sort_stages(ctx, cmd, args, internal);
}

}  // namespace gpuscan::testkit
