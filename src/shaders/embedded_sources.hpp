// The shader sources compiled at run time, embedded verbatim by cmake/Shaders.cmake
// (gpuscan_embed_runtime_sources): every shaders/common/*.glsl and the entry files of the variants below,
// shared by both backends. Generated tables.
#pragma once

#include <vector>

namespace gpuscan::shaders {

struct SourceFile {
  const char* path;  // relative to shaders/: "scan_local.comp", "common/ops.glsl"
  const char* text;
};

struct Variant {
  const char* name;     // custom_op_variants(): the kernel, "scan_local" (core::kernel_name);
                        // gl_variants(): the manifest's name, "scan_local.u32.add.blelloch", "custom.scan_local"
  const char* source;   // the entry file, a SourceFile path
  const char* defines;  // "TYPE_CUSTOM,OP_CUSTOM,WORKGROUP_BLELLOCH"
};

const std::vector<SourceFile>& source_files();
// Vulkan custom operators' kernels (shaders/variants.cmake, GPUSCAN_CUSTOM_OP_VARIANTS), compiled with shaderc.
const std::vector<Variant>& custom_op_variants();
// The OpenGL backend's programs (cmake/Shaders.cmake, gpuscan_gl_variants), assembled by core/glsl_assemble.hpp.
const std::vector<Variant>& gl_variants();

}  // namespace gpuscan::shaders
