#include "gl/buffers.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "core/dry_run.hpp"

namespace gpuscan::gl {

void check_view(const Context::Impl& impl, const char* what, const BufferView& view, uint64_t count, uint32_t esize,
                const char* need) {
  if (core::DryRun::active()) return;  // a plan's build or listing, over stand-in buffer names
  const Functions& gl = impl.gl;
  if (view.buffer == 0) throw Error(Errc::null_handle, std::string(what) + " buffer is 0 (no GL buffer name)");
  if (!gl.IsBuffer(view.buffer))
    throw Error(Errc::invalid_argument, std::string(what) + " buffer " + std::to_string(view.buffer) +
                                            " is not a GL buffer object of the current context");
  GLint64 size = 0, mapped = 0, access = 0;
  gl.GetNamedBufferParameteri64v(view.buffer, GL_BUFFER_SIZE, &size);
  gl.GetNamedBufferParameteri64v(view.buffer, GL_BUFFER_MAPPED, &mapped);
  gl.GetNamedBufferParameteri64v(view.buffer, GL_BUFFER_ACCESS_FLAGS, &access);
  if (mapped && !(access & GL_MAP_PERSISTENT_BIT))
    throw Error(Errc::invalid_argument, std::string(what) + " buffer " + std::to_string(view.buffer) +
                                            " is mapped (without GL_MAP_PERSISTENT_BIT); unmap it first");
  if (view.offset % esize != 0)
    throw Error(Errc::misaligned, std::string(what) + " offset " + std::to_string(view.offset) +
                                      " is not a multiple of the element size (" + std::to_string(esize) + " bytes)");
  const uint64_t buffer_size = static_cast<uint64_t>(size);
  const uint64_t holds = view.offset > buffer_size ? 0 : (buffer_size - view.offset) / esize;
  if (holds < count) {
    std::ostringstream msg;
    msg << what << " buffer holds " << holds << " elements from offset " << view.offset << " (buffer size "
        << buffer_size << " bytes), " << need << " " << count;
    throw Error(Errc::buffer_too_small, msg.str());
  }
}

bool overlaps(const BufferView& a, uint64_t a_bytes, const BufferView& b, uint64_t b_bytes) {
  return a.buffer == b.buffer && a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
}

Binding bind_elements(const Context::Impl& impl, const BufferView& view, uint64_t first, uint64_t count,
                      uint32_t esize) {
  const uint64_t start = view.offset + first * esize;
  const uint64_t align = impl.binding_alignment(esize);
  const uint64_t bound = start - start % align;
  const uint64_t bytes = start + std::max<uint64_t>(count, 1) * esize - bound;
  if (bytes > impl.max_binding_bytes)
    throw Error(Errc::too_large, "a pass would bind " + std::to_string(bytes) + " bytes, more than the " +
                                     std::to_string(impl.max_binding_bytes) +
                                     " one SSBO binding may span here (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
  return {view.buffer, bound, bytes, static_cast<uint32_t>((start - bound) / esize)};
}

}  // namespace gpuscan::gl
