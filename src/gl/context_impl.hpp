// What a gl::Context holds. Internal to the library.
#pragma once

#include <optional>
#include <map>
#include <span>
#include <string>

#include "core/pipeline_key.hpp"
#include "core/scan_policy.hpp"
#include "gl/functions.hpp"
#include "gpuscan/gl.hpp"

namespace gpuscan::gl {

// One SSBO binding of a caller's range: glBindBufferRange(buffer, offset, size), with element `first`
// of the range at element_offset inside it (what the shaders' pc.*_offset receive).
struct Binding {
  GLuint buffer = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t element_offset = 0;
};

struct Context::Impl {
  Functions gl;
  GlInfo info;
  void* display = nullptr;  // EGLDisplay / EGLContext of a context gpuscan created (or the adopted
  void* context = nullptr;  // one's, when it is an EGL context); null otherwise
  void* surface = nullptr;  // a 1x1 pbuffer where EGL lacks EGL_KHR_surfaceless_context, else null
  bool owns_context = false;
  MessageCallback on_message;
  uint64_t max_binding_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE, or TestHooks::max_binding_bytes
  uint32_t max_groups_x = 0;  // GL_MAX_COMPUTE_WORK_GROUP_COUNT[0], or TestHooks::max_workgroup_count_x
  // The tuning profile chosen from GL_VENDOR and GL_RENDERER at creation (core::select_gl_profile).
  const core::TuningProfile* profile = &core::conservative_profile();
  // What the context offers scans of `type` (core::choose_scan): never the single-pass scan.
  core::DeviceCaps caps(DataType type) const;
  // Why the ballot compaction paths are refused here (no GL_KHR_shader_subgroup ballots).
  std::string no_ballots() const { return info.renderer + " has no GL_KHR_shader_subgroup ballot in compute shaders"; }

  // Programs are compiled on first use and kept; the key's constants become GPUSCAN_SPEC_<id>.
  std::map<PipelineKey, GLuint> programs;
  // Custom operators (src/gl/custom_op.cpp): by snippet text, the prefix of their programs' variant
  // names ("custom3.") and the element's std430 stride; by prefix, the snippet.
  struct CompiledCustomOp {
    std::string prefix;
    uint32_t element_size = 0;
  };
  std::map<std::string, CompiledCustomOp> custom_ops;
  std::map<std::string, std::string> custom_snippets;
  uint32_t next_custom_op_id = 0;
  GLuint params_buffer = 0;  // the uniform block the shaders read their parameters from

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();

  // Throws Errc::invalid_argument unless this context is current on the calling thread (checked where
  // EGL can tell: contexts gpuscan created or adopted from EGL).
  void check_current() const;
  GLuint program(const PipelineKey& key);
  // Compiles `op` into its kernels' first program (or finds it compiled): Errc::compile_error with the
  // driver's info log, Errc::invalid_argument for an element_size that is not the snippet's.
  const CompiledCustomOp& custom_op(const CustomOp& op);
  // Where bindings of elements of `esize` bytes start: a multiple of GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT,
  // of 16 (the shaders' vectors) and of the element size (a custom operator's may be 12 bytes).
  uint64_t binding_alignment(uint32_t esize) const;
  // Binds `buffers` to SSBO bindings 0.., uploads `params` as the parameter block and dispatches a
  // (groups_x, groups_y) grid: what every gpuscan pass issues. With `indirect` the grid is the
  // command at that offset of that buffer (glDispatchComputeIndirect).
  struct IndirectCommand {
    GLuint buffer;
    uint64_t offset;
  };
  void dispatch(const PipelineKey& key, std::span<const Binding> buffers, std::span<const uint32_t> params,
                uint32_t groups_x, uint32_t groups_y, std::optional<IndirectCommand> indirect = std::nullopt);
  // Throws Errc::unsupported, naming the missing extension, unless GL has the shader types `type` needs
  // (u64 and i64: GL_ARB_gpu_shader_int64; f64: GL_ARB_gpu_shader_fp64, core since 4.0).
  void check_type(DataType type) const;
  // Whether reductions of `type` run the .no_subgroups tile kernels (no GL_KHR_shader_subgroup
  // arithmetic, or a 64-bit type); throws Errc::unsupported when GL lacks the type.
  bool reduce_without_subgroups(DataType type) const;
  // Throws Errc::gl_error naming `what` if GL reports an error (the error is consumed).
  void check_error(const char* what) const;
};

namespace detail {
// A Context keeps its state private; the backend, and gpuscan's white-box tests and benchmarks, reach it here.
struct ContextAccess {
  static Context::Impl& impl(const Context& ctx) noexcept { return *ctx.impl_; }
};
}  // namespace detail

inline Context::Impl& impl_of(const Context& ctx) noexcept { return detail::ContextAccess::impl(ctx); }

// Fills GlInfo from the current context and loads nothing; Errc::unsupported below GL 4.5.
GlInfo query_info(const Functions& gl);
// Loads the GL entry points through eglGetProcAddress.
Functions load_functions();

}  // namespace gpuscan::gl
