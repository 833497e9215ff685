#include "gl/execute.hpp"

#include <algorithm>
#include <vector>

#include "gl/buffers.hpp"

namespace gpuscan::gl {
namespace {

// The parameter block a dispatch uploads is at least this many words, zero-filled: every kernel's
// uniform block fits it, so a program's shorter list never leaves part of a block unbacked.
constexpr size_t least_param_words = 24;

struct Ready {
  core::ResolvedDispatch resolved;
  std::vector<Binding> bindings;
  std::optional<Context::Impl::IndirectCommand> indirect;
};

}  // namespace

void build_programs(Context::Impl& impl, const core::Program& program) {
  for (const core::Command& c : program.commands)
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) impl.program(d->key);
}

void execute(Context::Impl& impl, const core::Program& program, std::span<const BufferView> buffers, double* gpu_ns) {
  // Every binding resolved and every program built before the first command: an error issues nothing.
  std::vector<Ready> ready;
  for (const core::Command& c : program.commands) {
    const auto* d = std::get_if<core::cmd::Dispatch>(&c);
    if (!d) continue;
    Ready r;
    std::vector<uint32_t> offsets;
    for (const core::Bind& b : d->bindings) {
      r.bindings.push_back(bind_elements(impl, core::buffer_at(buffers, b.buffer), b.first, b.count, b.unit));
      offsets.push_back(r.bindings.back().element_offset);
    }
    r.resolved = core::resolve_dispatch(*d, offsets, nullptr);
    r.resolved.params.resize(std::max(r.resolved.params.size(), least_param_words), 0);
    if (d->indirect) {
      const BufferView& v = core::buffer_at(buffers, d->indirect->buffer);
      r.indirect = Context::Impl::IndirectCommand{v.buffer, v.offset + d->indirect->offset};
    }
    impl.program(r.resolved.key);
    ready.push_back(std::move(r));
  }
  GLuint queries[2] = {0, 0};
  if (gpu_ns) {
    impl.gl.CreateQueries(GL_TIMESTAMP, 2, queries);
    impl.gl.QueryCounter(queries[0], GL_TIMESTAMP);
  }
  size_t next = 0;
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const core::Command& c = program.commands[i];
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) {
      const Ready& r = ready[next++];
      impl.dispatch(r.resolved.key, r.bindings, r.resolved.params, d->groups_x, d->groups_y, r.indirect);
    } else if (std::holds_alternative<core::cmd::Barrier>(c)) {
      const core::BarrierScope s = core::barrier_scope(program, i);
      if (!s.after_dispatch) continue;  // buffer commands are ordered without one
      GLbitfield bits = 0;
      if (s.before_dispatch) bits |= GL_SHADER_STORAGE_BARRIER_BIT;
      if (s.before_indirect) bits |= GL_COMMAND_BARRIER_BIT;
      if (s.before_transfer) bits |= GL_BUFFER_UPDATE_BARRIER_BIT;
      if (bits) impl.gl.MemoryBarrier(bits);
    } else if (const auto* f = std::get_if<core::cmd::Fill>(&c)) {
      const BufferView& v = core::buffer_at(buffers, f->buffer);
      impl.gl.ClearNamedBufferSubData(v.buffer, GL_R32UI, static_cast<GLintptr>(v.offset + f->offset),
                                      static_cast<GLsizeiptr>(f->bytes), GL_RED_INTEGER, GL_UNSIGNED_INT, &f->value);
    } else {
      // Copied from a buffer of its own, so that the caller's storage need not be dynamic.
      const auto& u = std::get<core::cmd::Update>(c);
      const BufferView& v = core::buffer_at(buffers, u.buffer);
      const uint64_t bytes = 4 * u.words.size();
      const OwnedBuffer from(impl.gl, bytes, u.words.data());
      impl.gl.CopyNamedBufferSubData(from.view().buffer, v.buffer, 0, static_cast<GLintptr>(v.offset + u.offset),
                                     static_cast<GLsizeiptr>(bytes));
    }
  }
  if (gpu_ns) {
    impl.gl.QueryCounter(queries[1], GL_TIMESTAMP);
    GLuint64 begin = 0, end = 0;
    impl.gl.GetQueryObjectui64v(queries[0], GL_QUERY_RESULT, &begin);
    impl.gl.GetQueryObjectui64v(queries[1], GL_QUERY_RESULT, &end);
    impl.gl.DeleteQueries(2, queries);
    *gpu_ns = end > begin ? static_cast<double>(end - begin) : 0.0;
  }
}

}  // namespace gpuscan::gl
