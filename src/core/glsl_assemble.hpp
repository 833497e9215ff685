// One GLSL source text from the shader files (shaders/, embedded verbatim) for a driver that compiles GLSL
// itself (the OpenGL backend): what `glslc -E` would give, except that macros stay unexpanded for the driver.
// Conditional blocks are evaluated on defined-ness only (the shaders test nothing else), so inactive lines,
// and the #extension and #include lines among them, are dropped; the active #extension lines move up to
// just after #version, where GLSL wants them (NVIDIA's compiler insists, error C7621).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscan::core {

struct GlslFile {
  std::string_view path;  // relative to shaders/: "scan_local.comp", "common/ops.glsl"
  std::string_view text;
};

struct GlslDefine {
  std::string name;
  std::string value;  // may be empty
};

struct GlslRequest {
  std::span<const GlslFile> files;   // what #include "x" resolves against: relative to the includer, then to shaders/
  std::string_view entry;            // the path of the file with #version and main()
  std::vector<GlslDefine> defines;   // emitted after the #extension lines, in this order
  // What "custom_op.glsl" resolves to (a custom operator's snippet); its lines are source string 1, numbered
  // from 1, so that the driver's messages point into the snippet. Its own conditionals are left to the driver.
  std::optional<std::string_view> snippet;
};

struct AssembledGlsl {
  std::string text;
  // Source-string number -> what it holds ("preamble", "the custom operator's snippet", a file path); the
  // #line directives of `text` use these numbers, as GL's #line takes no file names.
  std::vector<std::string> source_strings;

  // "0 = preamble, 2 = scan_local.comp, ...": for compiler messages.
  std::string source_string_legend() const;
};

// Throws Error(Errc::unsupported, "internal: ...") on an unknown include, an unbalanced conditional or a
// condition other than defined(X) combined with !, &&, || and parentheses.
AssembledGlsl assemble_glsl(const GlslRequest& request);

// "TYPE_U32,OP_ADD" -> {{"TYPE_U32", ""}, {"OP_ADD", ""}}: the manifest's define lists.
std::vector<GlslDefine> split_define_list(std::string_view list);

}  // namespace gpuscan::core
