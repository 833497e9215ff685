#include "gl/execute.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "core/dry_run.hpp"
#include "core/execute.hpp"
#include "gl/buffers.hpp"
#include "gl/timer.hpp"

namespace gpuscan::gl {
namespace {

// The parameter block a dispatch uploads is at least this many words, zero-filled: every kernel's
// uniform block fits it, so a program's shorter list never leaves part of a block unbacked.
constexpr size_t least_param_words = 24;

// core::execute_program's backend: GL calls on the current context.
struct Issuer {
  using Bound = Binding;
  Context::Impl& impl;
  std::span<const BufferView> buffers;

  const BufferView& view(uint8_t i) const { return core::buffer_at(buffers, i); }
  Binding bind(const core::Bind& b) { return bind_elements(impl, view(b.buffer), b.first, b.count, b.unit); }
  uint32_t element_offset(const Binding& b) const { return b.element_offset; }
  std::function<uint64_t(const core::Bind&)> address() { return {}; }  // no device addresses on GL
  void build(const PipelineKey& key) { impl.program(key); }
  bool recording() const { return true; }

  void dispatch(const PipelineKey& key, std::span<const Binding> bound, std::span<const uint32_t> params,
                const core::cmd::Dispatch& d) {
    std::vector<uint32_t> words(params.begin(), params.end());
    words.resize(std::max(words.size(), least_param_words), 0);
    std::optional<Context::Impl::IndirectCommand> indirect;
    if (d.indirect) {
      const BufferView& v = view(d.indirect->buffer);
      indirect = Context::Impl::IndirectCommand{v.buffer, v.offset + d.indirect->offset};
    }
    impl.dispatch(key, bound, words, d.groups_x, d.groups_y, indirect);
  }

  void barrier(const core::BarrierScope& s) {
    if (!s.after_dispatch) return;  // buffer commands are ordered without one
    GLbitfield bits = 0;
    if (s.before_dispatch) bits |= GL_SHADER_STORAGE_BARRIER_BIT;
    if (s.before_indirect) bits |= GL_COMMAND_BARRIER_BIT;
    if (s.before_transfer) bits |= GL_BUFFER_UPDATE_BARRIER_BIT;
    if (bits) impl.gl.MemoryBarrier(bits);
  }

  void fill(const core::cmd::Fill& f) {
    const BufferView& v = view(f.buffer);
    impl.gl.ClearNamedBufferSubData(v.buffer, GL_R32UI, static_cast<GLintptr>(v.offset + f.offset),
                                    static_cast<GLsizeiptr>(f.bytes), GL_RED_INTEGER, GL_UNSIGNED_INT, &f.value);
  }

  void update(const core::cmd::Update& u) {
    // Copied from a buffer of its own, so that the caller's storage need not be dynamic.
    const BufferView& v = view(u.buffer);
    const uint64_t bytes = 4 * u.words.size();
    const OwnedBuffer from(impl.gl, bytes, u.words.data());
    impl.gl.CopyNamedBufferSubData(from.view().buffer, v.buffer, 0, static_cast<GLintptr>(v.offset + u.offset),
                                   static_cast<GLsizeiptr>(bytes));
  }
};

}  // namespace

void build_programs(Context::Impl& impl, const core::Program& program, bool either_alignment) {
  for (const core::Command& c : program.commands)
    if (const auto* d = std::get_if<core::cmd::Dispatch>(&c)) {
      impl.program(d->key);
      if (either_alignment && !d->vector_aligned_if.empty()) {
        PipelineKey other = d->key;
        other.vector_aligned = !other.vector_aligned;
        impl.program(other);
      }
    }
}

void execute(Context::Impl& impl, const core::Program& program, std::span<const BufferView> buffers, double* gpu_ns) {
  if (core::DryRun* dry = core::DryRun::active()) {  // a plan's build or listing: nothing is issued
    if (dry->mode() == core::DryRun::Mode::build) build_programs(impl, program, true);
    else dry->collect(program);
    return;
  }
  Issuer issuer{impl, buffers};
  // Timed: the programs built first, so that compiling is not timed.
  if (gpu_ns) build_programs(impl, program);
  timed(impl, gpu_ns, [&] { core::execute_program(program, issuer); });
}

}  // namespace gpuscan::gl
