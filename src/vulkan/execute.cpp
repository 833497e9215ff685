#include "vulkan/execute.hpp"

#include <algorithm>
#include <vector>

#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::vk {
namespace {

const BufferView& view_of(std::span<const BufferView> buffers, uint8_t i) { return core::buffer_at(buffers, i); }

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
  if (src_stage == 0 || dst_stage == 0) return;  // nothing written before, or nothing after, in this program
  const VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, src_access, dst_access};
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace

void execute(const Context& ctx, VkCommandBuffer cmd, const core::Program& program, std::span<const BufferView> buffers) {
  Context::Impl& impl = impl_of(ctx);
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const core::Command& c = program.commands[i];
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) {
      std::vector<VkDescriptorBufferInfo> infos;
      std::vector<uint32_t> offsets;
      for (const core::Bind& b : d->bindings) {
        const Binding bound = bind_elements(ctx, view_of(buffers, b.buffer), b.first, b.count, b.unit);
        infos.push_back(bound.info);
        offsets.push_back(bound.element_offset);
      }
      const std::vector<uint32_t> params = core::resolve_params(*d, offsets);
      std::optional<Context::Impl::IndirectCommand> indirect;
      if (d->indirect) {
        const BufferView& v = view_of(buffers, d->indirect->buffer);
        indirect = Context::Impl::IndirectCommand{v.buffer, v.offset + d->indirect->offset};
      }
      impl.record_dispatch(cmd, d->key, infos, params, d->groups_x, d->groups_y, indirect);
      continue;
    }
    if (cmd == VK_NULL_HANDLE) continue;  // building pipelines only
    if (std::holds_alternative<core::cmd::Barrier>(c)) {
      record_barrier(cmd, core::barrier_scope(program, i));
    } else if (const auto* f = std::get_if<core::cmd::Fill>(&c)) {
      const BufferView& v = view_of(buffers, f->buffer);
      vkCmdFillBuffer(cmd, v.buffer, v.offset + f->offset, f->bytes, f->value);
    } else {
      const auto& u = std::get<core::cmd::Update>(c);
      const BufferView& v = view_of(buffers, u.buffer);
      constexpr size_t most = 65536 / 4;  // vkCmdUpdateBuffer's limit: 65536 bytes
      for (size_t done = 0; done < u.words.size(); done += most)
        vkCmdUpdateBuffer(cmd, v.buffer, v.offset + u.offset + 4 * done, 4 * std::min(most, u.words.size() - done),
                          u.words.data() + done);
    }
  }
}

}  // namespace gpuscan::vk
