#include "gl/program_source.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gpuscan/error.hpp"
#include "shaders/embedded_sources.hpp"

namespace gpuscan::gl {
namespace {

const std::vector<core::GlslFile>& files() {
  static const std::vector<core::GlslFile> files = [] {
    std::vector<core::GlslFile> list;
    for (const shaders::SourceFile& f : shaders::source_files()) list.push_back({f.path, f.text});
    return list;
  }();
  return files;
}

}  // namespace

core::AssembledGlsl program_source(std::string_view name, const Constants& constants,
                                   std::optional<std::string_view> snippet) {
  const auto& variants = shaders::gl_variants();
  const auto found = std::find_if(variants.begin(), variants.end(), [&](const shaders::Variant& v) { return name == v.name; });
  if (found == variants.end())
    throw Error(Errc::unsupported, "no shader variant " + std::string(name) +
                                       " is built into gpuscan's OpenGL backend (was it configured with fewer GPUSCAN_TYPES?)");
  std::vector<core::GlslDefine> defines = core::split_define_list(found->defines);
  defines.push_back({"GPUSCAN_GL", ""});  // shaders/common/backend.glsl: constants as the #defines below
  for (uint32_t id = 0; id < constants.size(); ++id)
    // Constant 0 is local_size_x, a layout qualifier: a plain int literal there.
    defines.push_back({"GPUSCAN_SPEC_" + std::to_string(id), std::to_string(constants[id]) + (id ? "u" : "")});
  return core::assemble_glsl({files(), found->source, std::move(defines), snippet});
}

}  // namespace gpuscan::gl
