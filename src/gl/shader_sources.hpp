// The GLSL sources of the OpenGL backend: every manifest variant (shaders/variants.cmake) that needs no
// particular Vulkan target, preprocessed with -DGPUSCAN_GL (cmake/Shaders.cmake). Generated table.
#pragma once

#include <vector>

namespace gpuscan::gl {

struct ShaderSource {
  const char* name;  // the manifest's variant name, e.g. "scan_local.u32.blelloch"
  const char* text;  // "#version 450" first; GPUSCAN_SPEC_<id> still to be defined
};

const std::vector<ShaderSource>& shader_sources();

}  // namespace gpuscan::gl
