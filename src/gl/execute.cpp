#include "gl/execute.hpp"

#include <vector>

#include "gl/buffers.hpp"

namespace gpuscan::gl {
namespace {

const BufferView& view_of(std::span<const BufferView> buffers, uint8_t i) { return core::buffer_at(buffers, i); }

}  // namespace

void build_programs(Context::Impl& impl, const core::Program& program) {
  for (const core::Command& c : program.commands)
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) impl.program(d->key);
}

void execute(Context::Impl& impl, const core::Program& program, std::span<const BufferView> buffers) {
  build_programs(impl, program);
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const core::Command& c = program.commands[i];
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) {
      std::vector<Binding> bound;
      std::vector<uint32_t> offsets;
      for (const core::Bind& b : d->bindings) {
        bound.push_back(bind_elements(impl, view_of(buffers, b.buffer), b.first, b.count, b.unit));
        offsets.push_back(bound.back().element_offset);
      }
      const std::vector<uint32_t> params = core::resolve_params(*d, offsets);
      std::optional<Context::Impl::IndirectCommand> indirect;
      if (d->indirect) {
        const BufferView& v = view_of(buffers, d->indirect->buffer);
        indirect = Context::Impl::IndirectCommand{v.buffer, v.offset + d->indirect->offset};
      }
      impl.dispatch(d->key, bound, params, d->groups_x, d->groups_y, indirect);
    } else if (std::holds_alternative<core::cmd::Barrier>(c)) {
      const core::BarrierScope s = core::barrier_scope(program, i);
      if (!s.after_dispatch) continue;  // buffer commands are ordered without one
      GLbitfield bits = 0;
      if (s.before_dispatch) bits |= GL_SHADER_STORAGE_BARRIER_BIT;
      if (s.before_indirect) bits |= GL_COMMAND_BARRIER_BIT;
      if (s.before_transfer) bits |= GL_BUFFER_UPDATE_BARRIER_BIT;
      if (bits) impl.gl.MemoryBarrier(bits);
    } else if (const auto* f = std::get_if<core::cmd::Fill>(&c)) {
      const BufferView& v = view_of(buffers, f->buffer);
      impl.gl.ClearNamedBufferSubData(v.buffer, GL_R32UI, static_cast<GLintptr>(v.offset + f->offset),
                                      static_cast<GLsizeiptr>(f->bytes), GL_RED_INTEGER, GL_UNSIGNED_INT, &f->value);
    } else {
      // Copied from a buffer of its own, so that the caller's storage need not be dynamic.
      const auto& u = std::get<core::cmd::Update>(c);
      const BufferView& v = view_of(buffers, u.buffer);
      const uint64_t bytes = 4 * u.words.size();
      const OwnedBuffer from(impl.gl, bytes, u.words.data());
      impl.gl.CopyNamedBufferSubData(from.view().buffer, v.buffer, 0, static_cast<GLintptr>(v.offset + u.offset),
                                     static_cast<GLsizeiptr>(bytes));
    }
  }
}

}  // namespace gpuscan::gl
