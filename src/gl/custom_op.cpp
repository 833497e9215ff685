// Custom operators (CustomOp, include/gpuscan/types.hpp) on OpenGL. The GL driver compiles GLSL from
// source, so no shaderc is involved: the "custom.<kernel>" sources (cmake/Shaders.cmake, the kernels of
// GPUSCAN_CUSTOM_OP_VARIANTS) get the caller's snippet where "custom_op.glsl" was included
// (Context::Impl::program), as the programs "custom<id>.<kernel>". The element size is the std430 stride
// of the snippet's T, which GL's program interface query states once the first kernel is linked.
#include <string>

#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "core/variant_names.hpp"
#include "gl/context_impl.hpp"

namespace gpuscan::gl {
namespace {

// The array stride of the kernel's g_src or g_dst (for a struct T, read from any of its members).
uint32_t element_stride(const Functions& gl, GLuint program) {
  GLint count = 0;
  gl.GetProgramInterfaceiv(program, GL_BUFFER_VARIABLE, GL_ACTIVE_RESOURCES, &count);
  for (GLint i = 0; i < count; ++i) {
    char name[256] = {};
    gl.GetProgramResourceName(program, GL_BUFFER_VARIABLE, static_cast<GLuint>(i), sizeof name, nullptr, name);
    const std::string text(name);
    if (text.find("g_src[0]") == std::string::npos && text.find("g_dst[0]") == std::string::npos) continue;
    // Mesa states the stride of an array of a basic type as GL_ARRAY_STRIDE only, that of an array of
    // structs (its members are the resources) as GL_TOP_LEVEL_ARRAY_STRIDE.
    const GLenum properties[2] = {GL_TOP_LEVEL_ARRAY_STRIDE, GL_ARRAY_STRIDE};
    GLint strides[2] = {0, 0};
    gl.GetProgramResourceiv(program, GL_BUFFER_VARIABLE, static_cast<GLuint>(i), 2, properties, 2, nullptr, strides);
    if (strides[0] > 0) return static_cast<uint32_t>(strides[0]);
    if (strides[1] > 0) return static_cast<uint32_t>(strides[1]);
  }
  return 0;
}

}  // namespace

const Context::Impl::CompiledCustomOp& Context::Impl::custom_op(const CustomOp& op) {
  if (op.glsl.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(Errc::invalid_argument, "the custom operator's GLSL is empty: it must define T, identity() and combine(a, b)");
  auto found = custom_ops.find(op.glsl);
  if (found == custom_ops.end()) {
    CompiledCustomOp compiled{"custom" + std::to_string(next_custom_op_id++) + ".", 0};  // ids never reused
    custom_snippets[compiled.prefix] = op.glsl;
    PipelineKey key;
    key.variant = compiled.prefix + core::custom_variant_name(core::Kernel::scan_local);
    key.workgroup_size = core::default_workgroup_size;
    GLuint first = 0;
    try {
      first = program(key);  // a compile error throws here, before the snippet is cached
    } catch (...) {
      custom_snippets.erase(compiled.prefix);
      throw;
    }
    compiled.element_size = element_stride(gl, first);
    check_error("reading a custom operator's element stride");
    if (compiled.element_size == 0) {
      custom_snippets.erase(compiled.prefix);
      throw Error(Errc::unsupported, "the custom operator's element size could not be read from its GL program");
    }
    found = custom_ops.emplace(op.glsl, std::move(compiled)).first;
  }
  const CompiledCustomOp& compiled = found->second;
  core::check_custom_element_size(op, compiled.element_size);
  return compiled;
}

uint32_t compile_custom_op(const Context& ctx, const CustomOp& op) {
  impl_of(ctx).check_current();
  return impl_of(ctx).custom_op(op).element_size;
}

}  // namespace gpuscan::gl
