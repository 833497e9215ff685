// Checks and bindings of caller buffers for every GL primitive (scans, compaction): the GL side of
// src/vulkan/buffer_checks.hpp, with the buffer's size asked from GL instead of stated by the caller.
#pragma once

#include <algorithm>
#include <cstdint>

#include "gl/context_impl.hpp"

namespace gpuscan::gl {

// Throws the matching gpuscan::Error unless `view` can hold `count` elements of `esize` bytes: a
// non-zero name (Errc::null_handle) of a buffer object with storage that is not mapped
// (invalid_argument), an offset that is a multiple of esize (misaligned), room for count elements
// (buffer_too_small; the message ends "..., <need> C"). Leaves no GL error behind.
void check_view(const Context::Impl& impl, const char* what, const BufferView& view, uint64_t count, uint32_t esize,
                const char* need = "the scan needs");

bool overlaps(const BufferView& a, uint64_t a_bytes, const BufferView& b, uint64_t b_bytes);

// Binds `count` elements from element `first` of `view` at an offset rounded down to
// Context::Impl::binding_alignment (GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, 16 bytes at least so the
// shaders' 16-byte vectors stay aligned, and a multiple of the element size); the shader adds
// element_offset back. Throws Errc::too_large past
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE.
Binding bind_elements(const Context::Impl& impl, const BufferView& view, uint64_t first, uint64_t count,
                      uint32_t esize);

// A buffer object with immutable storage, deleted with its owner.
class OwnedBuffer {
 public:
  OwnedBuffer(const Functions& gl, uint64_t bytes, const void* data = nullptr) : gl_(gl) {
    gl.CreateBuffers(1, &name_);
    // Zero-sized storage is an error in GL; scratch of 0 bytes is simply never bound.
    gl.NamedBufferStorage(name_, static_cast<GLsizeiptr>(std::max<uint64_t>(bytes, 4)), bytes ? data : nullptr, 0);
  }
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  ~OwnedBuffer() { gl_.DeleteBuffers(1, &name_); }
  BufferView view() const { return {name_, 0}; }
  void read(void* out, uint64_t bytes) const {
    if (bytes) gl_.GetNamedBufferSubData(name_, 0, static_cast<GLsizeiptr>(bytes), out);
  }

 private:
  const Functions& gl_;
  GLuint name_ = 0;
};

// After a call recorded into `out`: makes its shader writes visible to reads, reads the first
// `bytes` into `data` and throws Errc::gl_error (naming `what`) if GL reports an error.
inline void read_back(const Context::Impl& impl, const OwnedBuffer& out, void* data, uint64_t bytes, const char* what) {
  impl.gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  out.read(data, bytes);
  impl.check_error(what);
}

}  // namespace gpuscan::gl
