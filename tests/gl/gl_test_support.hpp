// Shared by the OpenGL tests: one debug GL context per process (EGL surfaceless on llvmpipe in CI) whose
// KHR_debug errors fail the running test, a fixture that also fails a test that leaves a GL error
// pending, and GL buffers to drive the record-level API.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gl/context_impl.hpp"
#include "gpu_test_support.hpp"  // random_values, poison, fresh_seed
#include "gpuscan/gl.hpp"

namespace gpuscan::test {

// The process-wide debug context (created on first use).
gl::Context& gl_context();
const gl::Functions& gl_functions();
// KHR_debug messages of severity error since the last call.
std::vector<std::string> take_gl_errors();

class GlTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& m : take_gl_errors()) ADD_FAILURE() << "KHR_debug: " << m;
    EXPECT_EQ(gl_functions().GetError(), static_cast<GLenum>(GL_NO_ERROR)) << "a GL error was left pending";
  }
};

// A GL buffer of `bytes` bytes, deleted at the end of the scope.
class GlBuffer {
 public:
  explicit GlBuffer(size_t bytes, const void* data = nullptr) {
    gl_functions().CreateBuffers(1, &name_);
    gl_functions().NamedBufferStorage(name_, static_cast<GLsizeiptr>(bytes), data, GL_DYNAMIC_STORAGE_BIT);
  }
  GlBuffer(const GlBuffer&) = delete;
  GlBuffer& operator=(const GlBuffer&) = delete;
  ~GlBuffer() { gl_functions().DeleteBuffers(1, &name_); }
  GLuint name() const { return name_; }
  gl::BufferView view(uint64_t offset = 0) const { return {name_, offset}; }
  template <class T>
  std::vector<T> read(size_t first, size_t count) const {
    std::vector<T> out(count);
    if (count) gl_functions().GetNamedBufferSubData(name_, first * sizeof(T), count * sizeof(T), out.data());
    return out;
  }

 private:
  GLuint name_ = 0;
};

// The gpuscan::Error that `f` throws (a test failure if none), which must leave no GL error pending.
template <class F>
Error thrown_by(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(gl_functions().GetError(), static_cast<GLenum>(GL_NO_ERROR)) << e.what();
    return e;
  }
  ADD_FAILURE() << "no gpuscan::Error";
  return Error(Errc{}, "none");
}
template <class F>
Errc error_of(F&& f) {
  return static_cast<Errc>(thrown_by(std::forward<F>(f)).code().value());
}

// While it lives, the shared context binds at most 20000 bytes per SSBO binding (as
// TestHooks::max_binding_bytes would), so a few thousand elements span several windows.
struct BindingCap {
  uint64_t saved = impl_of(gl_context()).max_binding_bytes;
  BindingCap() { impl_of(gl_context()).max_binding_bytes = 20000; }
  BindingCap(const BindingCap&) = delete;
  BindingCap& operator=(const BindingCap&) = delete;
  ~BindingCap() { impl_of(gl_context()).max_binding_bytes = saved; }
};

// A count in GPU memory for count_from: the words {count, unused, status}, the status poisoned.
class GlCount {
 public:
  explicit GlCount(uint64_t count) : words_{static_cast<uint32_t>(count), 0, 0xA5A5A5A5u}, buffer_(sizeof words_, words_) {}
  gl::IndirectCount indirect() const { return {buffer_.view(), false, buffer_.view(8)}; }
  uint32_t status() const { return buffer_.read<uint32_t>(2, 1)[0]; }

 private:
  uint32_t words_[3];
  GlBuffer buffer_;
};

// Everything after a recorded call: make its shader writes visible to glGetBufferSubData.
inline void buffer_update_barrier() { gl_functions().MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT); }

// A poisoned buffer of `bytes` (0xA5 bytes).
inline std::vector<unsigned char> poison_bytes(size_t bytes) { return std::vector<unsigned char>(bytes, 0xA5); }


// Whether `f` is refused (Errc::unsupported) naming GL_ARB_gpu_shader_int64 while the shared context
// claims not to have it: u64 and i64 need it (64-bit compaction, segmented reductions by offsets).
template <class F>
::testing::AssertionResult refused_without_int64(F&& f) {
  gl::GlInfo& info = impl_of(gl_context()).info;
  const bool saved = std::exchange(info.gpu_shader_int64, false);
  const Error e = thrown_by(std::forward<F>(f));
  info.gpu_shader_int64 = saved;
  if (e.code() == Errc::unsupported && std::string(e.what()).find("GL_ARB_gpu_shader_int64") != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << e.what();
}

}  // namespace gpuscan::test
