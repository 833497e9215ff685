// Checks and bindings of caller buffers for every GL primitive (scans, compaction): the GL side of
// src/vulkan/buffer_checks.hpp, with the buffer's size asked from GL instead of stated by the caller.
#pragma once

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
// GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT (16 bytes at least, so the shaders' 16-byte vectors stay
// aligned); the shader adds element_offset back. Throws Errc::too_large past
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE.
Binding bind_elements(const Context::Impl& impl, const BufferView& view, uint64_t first, uint64_t count,
                      uint32_t esize);

}  // namespace gpuscan::gl
