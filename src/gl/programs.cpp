// Programs are compiled on first use from the embedded GLSL (shader_sources.hpp) with the key's constants
// as #defines after #version, and kept for the Context's lifetime: one program per key, per GL context.
#include <algorithm>
#include <string>
#include <string_view>

#include "gl/context_impl.hpp"
#include "gl/shader_sources.hpp"

namespace gpuscan::gl {
namespace {

// "#version 450\n#extension ...\n#define GPUSCAN_SPEC_0 256\n#define GPUSCAN_SPEC_1 1u\n..." + the rest of
// the source. The #extension lines, which the inlined includes leave among the declarations, move up
// to just after #version: GLSL wants them before any other token, and NVIDIA's compiler insists
// (error C7621) where Mesa's does not.
std::string with_constants(const char* text, const PipelineKey& key) {
  std::string source(text);
  std::string extensions;
  for (size_t line = source.find('\n') + 1; line < source.size();) {
    size_t end = source.find('\n', line);
    end = end == std::string::npos ? source.size() : end + 1;
    const size_t first = source.find_first_not_of(" \t", line);
    if (first < end && source.compare(first, 10, "#extension") == 0) {
      extensions += source.substr(first, end - first);
      if (extensions.back() != '\n') extensions += '\n';
      source.erase(line, end - line);
      continue;
    }
    line = end;
  }
  const size_t after_version = source.find('\n') + 1;
  std::string defines = extensions;
  const auto values = key.constants();
  for (uint32_t id = 0; id < PipelineKey::constant_count; ++id)
    // Constant 0 is local_size_x, a layout qualifier: a plain int literal there.
    defines += "#define GPUSCAN_SPEC_" + std::to_string(id) + " " + std::to_string(values[id]) + (id ? "u\n" : "\n");
  source.insert(after_version, defines);
  return source;
}

std::string info_log(const Functions& gl, GLuint object, bool program) {
  GLint length = 0;
  (program ? gl.GetProgramiv : gl.GetShaderiv)(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
  (program ? gl.GetProgramInfoLog : gl.GetShaderInfoLog)(object, length, nullptr, log.data());
  log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
  return log;
}

// The line the "custom.<kernel>" sources keep where the caller's snippet goes (cmake/Shaders.cmake).
constexpr std::string_view snippet_marker = "void gpuscan_custom_op_snippet();";

// `text` with the snippet in place of the marker, numbered as source string 1 so that the driver's
// messages give the snippet's own line numbers ("1:3(12): error: ...").
std::string with_snippet(const char* text, const std::string& snippet) {
  std::string source(text);
  const size_t at = source.find(snippet_marker);
  if (at == std::string::npos) throw Error(Errc::unsupported, "internal: a custom operator kernel without its marker");
  const auto line = std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
  source.replace(at, snippet_marker.size(), "\n#line 1 1\n" + snippet + "\n#line " + std::to_string(line) + " 0\n");
  return source;
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
  const auto& table = shader_sources();
  auto found = std::find_if(table.begin(), table.end(), [&](const ShaderSource& s) { return name == s.name; });
  if (found == table.end())
    throw Error(Errc::unsupported, "no shader variant " + key.variant +
                                       " is built into gpuscan's OpenGL backend (was it configured with fewer GPUSCAN_TYPES?)");

  const std::string source = with_constants(snippet ? with_snippet(found->text, *snippet).c_str() : found->text, key);
  const char* text = source.c_str();
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
                                           " kernel; the snippet is source string 1): " + log);
    throw Error(Errc::gl_error, "the GL driver did not compile " + key.variant + " (W = " +
                                    std::to_string(key.workgroup_size) + "): " + log);
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
