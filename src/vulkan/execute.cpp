#include "vulkan/execute.hpp"

#include <algorithm>
#include <vector>

#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::vk {
namespace {

void record_barrier(VkCommandBuffer cmd, const core::BarrierScope& s) {
  VkPipelineStageFlags src_stage = 0, dst_stage = 0;
  VkAccessFlags src_access = 0, dst_access = 0;
  if (s.after_dispatch) src_stage |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, src_access |= VK_ACCESS_SHADER_WRITE_BIT;
  if (s.after_transfer) src_stage |= VK_PIPELINE_STAGE_TRANSFER_BIT, src_access |= VK_ACCESS_TRANSFER_WRITE_BIT;
  if (s.before_dispatch)
    dst_stage |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_access |= VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  if (s.before_indirect)
    dst_stage |= VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, dst_access |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  if (s.before_transfer)
    dst_stage |= VK_PIPELINE_STAGE_TRANSFER_BIT, dst_access |= VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  if (src_stage == 0) return;  // nothing written before it in this program
  // A barrier that ends a program (a histogram with nothing to count, after its counts were zeroed) orders
  // its transfers before compute: the barrier a caller records after any gpuscan call, from compute
  // writes, then chains on to the caller's own use.
  if (dst_stage == 0)
    dst_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  const VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, src_access, dst_access};
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// A dispatch bound and resolved, ready to record.
struct Ready {
  core::ResolvedDispatch resolved;
  std::vector<VkDescriptorBufferInfo> infos;
  std::optional<Context::Impl::IndirectCommand> indirect;
};

}  // namespace

void execute(const Context& ctx, VkCommandBuffer cmd, const core::Program& program, std::span<const BufferView> buffers) {
  Context::Impl& impl = impl_of(ctx);
  auto address = [&](const core::Bind& at) {
    return element_address(ctx, core::buffer_at(buffers, at.buffer), at.first, at.unit);
  };
  // Every binding resolved and every pipeline built before the first command: an error records nothing.
  std::vector<Ready> ready;
  for (const core::Command& c : program.commands) {
    const auto* d = std::get_if<core::cmd::Dispatch>(&c);
    if (!d) continue;
    Ready r;
    std::vector<uint32_t> offsets;
    for (const core::Bind& b : d->bindings) {
      const Binding bound = bind_elements(ctx, core::buffer_at(buffers, b.buffer), b.first, b.count, b.unit);
      r.infos.push_back(bound.info);
      offsets.push_back(bound.element_offset);
    }
    r.resolved = core::resolve_dispatch(*d, offsets, address);
    if (d->indirect) {
      const BufferView& v = core::buffer_at(buffers, d->indirect->buffer);
      r.indirect = Context::Impl::IndirectCommand{v.buffer, v.offset + d->indirect->offset};
    }
    impl.pipeline(r.resolved.key);
    ready.push_back(std::move(r));
  }
  if (cmd == VK_NULL_HANDLE) return;  // building pipelines only
  size_t next = 0;
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const core::Command& c = program.commands[i];
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) {
      const Ready& r = ready[next++];
      impl.record_dispatch(cmd, r.resolved.key, r.infos, r.resolved.params, d->groups_x, d->groups_y, r.indirect);
    } else if (std::holds_alternative<core::cmd::Barrier>(c)) {
      record_barrier(cmd, core::barrier_scope(program, i));
    } else if (const auto* f = std::get_if<core::cmd::Fill>(&c)) {
      const BufferView& v = core::buffer_at(buffers, f->buffer);
      vkCmdFillBuffer(cmd, v.buffer, v.offset + f->offset, f->bytes, f->value);
    } else {
      const auto& u = std::get<core::cmd::Update>(c);
      const BufferView& v = core::buffer_at(buffers, u.buffer);
      constexpr size_t most = 65536 / 4;  // vkCmdUpdateBuffer's limit: 65536 bytes
      for (size_t done = 0; done < u.words.size(); done += most)
        vkCmdUpdateBuffer(cmd, v.buffer, v.offset + u.offset + 4 * done, 4 * std::min(most, u.words.size() - done),
                          u.words.data() + done);
    }
  }
}

}  // namespace gpuscan::vk
