#include "vulkan/indirect.hpp"

#include <bit>

#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::vk {

core::ByteRange byte_range(const BufferView& view, uint64_t bytes) {
  // VkBuffer is a pointer or a 64-bit integer, depending on the platform.
  uint64_t handle = 0;
  if constexpr (sizeof(VkBuffer) == sizeof(uint64_t)) handle = std::bit_cast<uint64_t>(view.buffer);
  else handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(view.buffer));
  return {handle, view.offset, bytes};
}

void check_indirect_count(const IndirectCount& from, const BufferView& temp, std::span<const core::ByteRange> written,
                          const char* written_names, const char* who, bool indirect_dispatch) {
  check_view("count", from.buffer, from.is_64bit ? 2 : 1, 4, "the count needs");
  if (from.status.buffer != VK_NULL_HANDLE) check_view("status", from.status, 1, 4, "the status word needs");
  if (indirect_dispatch && !(temp.usage & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT))
    throw Error(Errc::missing_usage, std::string("temp buffer lacks VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, which ") +
                                         who + " with its count in GPU memory needs for its dispatch commands "
                                               "(TempRequirements::usage)");
  core::check_indirect_count(byte_range(from.buffer, from.is_64bit ? 8 : 4),
                             from.status.buffer != VK_NULL_HANDLE ? byte_range(from.status, 4) : core::ByteRange{},
                             written, written_names);
}

void record_indirect_count(const Context& ctx, VkCommandBuffer cmd, const core::Dispatch& d, const IndirectCount& from,
                           const BufferView& temp, uint32_t esize, core::IndirectCountParams shape, bool min_one_block) {
  Context::Impl& impl = impl_of(ctx);
  PipelineKey key;
  key.variant = "indirect_count";
  key.use_aux = min_one_block;
  const Binding count = bind_elements(ctx, from.buffer, 0, from.is_64bit ? 2 : 1, 4);
  const Binding words = bind_elements(ctx, temp, d.aux.offset, d.aux.count, esize);
  const bool has_status = from.status.buffer != VK_NULL_HANDLE;
  const Binding status = has_status ? bind_elements(ctx, from.status, 0, 1, 4) : words;
  const VkDescriptorBufferInfo infos[3] = {count.info, words.info, status.info};
  shape.count_offset = count.element_offset;
  shape.is_64bit = from.is_64bit;
  shape.max_groups_x = impl.max_groups_x;
  shape.words_offset = static_cast<uint32_t>(words.element_offset * esize / 4);
  if (has_status) shape.status_offset = status.element_offset;
  impl.record_dispatch(cmd, key, infos, core::indirect_count_words(shape), 1, 1);
}

}  // namespace gpuscan::vk
