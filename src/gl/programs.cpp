// Programs are compiled on first use from GLSL assembled from the embedded shader files with the key's
// constants (gl/program_source.hpp), and kept for the Context's lifetime: one program per key, per GL context.
#include <algorithm>
#include <string>

#include "gl/context_impl.hpp"
#include "gl/program_source.hpp"

namespace gpuscan::gl {
namespace {

std::string info_log(const Functions& gl, GLuint object, bool program) {
  GLint length = 0;
  (program ? gl.GetProgramiv : gl.GetShaderiv)(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
  (program ? gl.GetProgramInfoLog : gl.GetShaderInfoLog)(object, length, nullptr, log.data());
  log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
  return log;
}

}  // namespace

GLuint Context::Impl::program(const PipelineKey& key) {
  if (auto it = programs.find(key); it != programs.end()) return it->second;
  // A custom operator's kernel: "custom<id>.<kernel>" is the source "custom.<kernel>" with snippet <id>.
  std::string name = key.variant;
  const std::string* snippet = nullptr;
  if (const size_t dot = name.find('.'); name.rfind("custom", 0) == 0 && dot != std::string::npos)
    if (auto it = custom_snippets.find(name.substr(0, dot + 1)); it != custom_snippets.end()) {
      snippet = &it->second;
      name = "custom" + name.substr(dot);
    }
  // The snippet is source string 1 of the text, so the driver's messages give its own line numbers.
  const core::AssembledGlsl source =
      program_source(name, key.constants(), snippet ? std::optional<std::string_view>(*snippet) : std::nullopt);
  const char* text = source.text.c_str();
  const GLuint shader = gl.CreateShader(GL_COMPUTE_SHADER);
  gl.ShaderSource(shader, 1, &text, nullptr);
  gl.CompileShader(shader);
  GLint ok = GL_FALSE;
  gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = info_log(gl, shader, false);
    gl.DeleteShader(shader);
    if (snippet)
      throw Error(Errc::compile_error, "the custom operator's GLSL did not compile (into the " + name.substr(7) +
                                           " kernel; the snippet is source string 1; source strings " +
                                           source.source_string_legend() + "): " + log);
    throw Error(Errc::gl_error, "the GL driver did not compile " + key.variant + " (W = " +
                                    std::to_string(key.workgroup_size) + "; source strings " +
                                    source.source_string_legend() + "): " + log);
  }
  const GLuint program = gl.CreateProgram();
  gl.AttachShader(program, shader);
  gl.LinkProgram(program);
  gl.DeleteShader(shader);  // freed with the program
  gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = info_log(gl, program, true);
    gl.DeleteProgram(program);
    throw Error(snippet ? Errc::compile_error : Errc::gl_error, "the GL driver did not link " + key.variant + ": " + log);
  }
  programs.emplace(key, program);
  return program;
}

void Context::Impl::dispatch(const PipelineKey& key, std::span<const Binding> buffers, std::span<const uint32_t> params,
                             uint32_t groups_x, uint32_t groups_y, std::optional<IndirectCommand> indirect) {
  gl.UseProgram(program(key));
  for (size_t i = 0; i < buffers.size(); ++i)
    gl.BindBufferRange(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(i), buffers[i].buffer,
                       static_cast<GLintptr>(buffers[i].offset), static_cast<GLsizeiptr>(buffers[i].size));
  // New storage for every dispatch (orphaning): dispatches already issued keep reading their own values.
  gl.NamedBufferData(params_buffer, static_cast<GLsizeiptr>(params.size_bytes()), params.data(), GL_STREAM_DRAW);
  gl.BindBufferRange(GL_UNIFORM_BUFFER, 0, params_buffer, 0, static_cast<GLsizeiptr>(params.size_bytes()));
  if (indirect) {
    gl.BindBuffer(GL_DISPATCH_INDIRECT_BUFFER, indirect->buffer);
    gl.DispatchComputeIndirect(static_cast<GLintptr>(indirect->offset));
    gl.BindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
  } else {
    gl.DispatchCompute(groups_x, groups_y, 1);
  }
}

}  // namespace gpuscan::gl
