#include "vulkan/execute.hpp"

#include <algorithm>
#include <functional>

#include "core/dry_run.hpp"
#include "core/execute.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"

namespace gpuscan::vk {
namespace {

// core::execute_program's backend: push descriptors, push constants, vkCmd* into `cmd`.
struct Recorder {
  using Bound = Binding;
  const Context& ctx;
  Context::Impl& impl;
  VkCommandBuffer cmd;
  std::span<const BufferView> buffers;

  const BufferView& view(uint8_t i) const { return core::buffer_at(buffers, i); }
  Binding bind(const core::Bind& b) { return bind_elements(ctx, view(b.buffer), b.first, b.count, b.unit); }
  uint32_t element_offset(const Binding& b) const { return b.element_offset; }
  std::function<uint64_t(const core::Bind&)> address() {
    return [this](const core::Bind& at) { return element_address(ctx, view(at.buffer), at.first, at.unit); };
  }
  void build(const PipelineKey& key) { impl.pipeline(key); }
  bool recording() const { return cmd != VK_NULL_HANDLE; }

  void dispatch(const PipelineKey& key, std::span<const Binding> bound, std::span<const uint32_t> params,
                const core::cmd::Dispatch& d) {
    std::vector<VkDescriptorBufferInfo> infos;
    for (const Binding& b : bound) infos.push_back(b.info);
    std::optional<Context::Impl::IndirectCommand> indirect;
    if (d.indirect) {
      const BufferView& v = view(d.indirect->buffer);
      indirect = Context::Impl::IndirectCommand{v.buffer, v.offset + d.indirect->offset};
    }
    impl.record_dispatch(cmd, key, infos, params, d.groups_x, d.groups_y, indirect);
  }

  void barrier(const core::BarrierScope& s) {
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
    // A barrier that ends a program (a histogram with nothing to count, after its counts were zeroed)
    // orders its transfers before compute: the barrier a caller records after any gpuscan call, from
    // compute writes, then chains on to the caller's own use.
    if (dst_stage == 0)
      dst_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    const VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, src_access, dst_access};
    impl.fn.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
  }

  void fill(const core::cmd::Fill& f) {
    const BufferView& v = view(f.buffer);
    impl.fn.vkCmdFillBuffer(cmd, v.buffer, v.offset + f.offset, f.bytes, f.value);
  }

  void update(const core::cmd::Update& u) {
    const BufferView& v = view(u.buffer);
    constexpr size_t most = 65536 / 4;  // vkCmdUpdateBuffer's limit: 65536 bytes
    for (size_t done = 0; done < u.words.size(); done += most)
      impl.fn.vkCmdUpdateBuffer(cmd, v.buffer, v.offset + u.offset + 4 * done, 4 * std::min(most, u.words.size() - done),
                        u.words.data() + done);
  }
};

}  // namespace

void execute(const Context& ctx, VkCommandBuffer cmd, const core::Program& program, std::span<const BufferView> buffers) {
  if (core::DryRun* dry = core::DryRun::active()) {  // a plan's listing or build: nothing is recorded
    if (dry->mode() == core::DryRun::Mode::list) return dry->collect(program);
    cmd = VK_NULL_HANDLE;  // builds the pipelines only, as the prepare_* walks do
  }
  Recorder recorder{ctx, impl_of(ctx), cmd, buffers};
  core::execute_program(program, recorder);
}

}  // namespace gpuscan::vk
