#include "vulkan/indirect.hpp"

#include <bit>

#include "gpuscan/vulkan/indirect_args.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"

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

}  // namespace gpuscan::vk

namespace gpuscan {

void record_indirect_args(const Context& ctx, VkCommandBuffer cmd, const IndirectArgs& args) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  const bool status = args.count.status.buffer != VK_NULL_HANDLE;
  const core::Program program = core::indirect_args_program(args.count.is_64bit, status, args.bound,
                                                            args.elements_per_workgroup, impl_of(ctx).max_groups_x);
  vk::check_view("command", args.command, 3, 4, "the dispatch command takes");
  const core::ByteRange written[] = {vk::byte_range(args.command, 12)};
  vk::check_indirect_count(args.count, {}, written, "the dispatch command", "record_indirect_args", false);
  const BufferView buffers[] = {args.count.buffer, args.command, args.count.status};  // core::IndirectArgsBuffer's order
  vk::execute(ctx, cmd, program, buffers);
}

}  // namespace gpuscan
