// The shader sources custom operators are compiled from at run time (src/vulkan/custom_op.cpp): the
// entry files of shaders/variants.cmake's GPUSCAN_CUSTOM_OP_VARIANTS and every shaders/common/*.glsl,
// embedded verbatim by cmake/Shaders.cmake (gpuscan_embed_runtime_sources). Generated tables.
#pragma once

#include <vector>

namespace gpuscan::vk {

struct RuntimeShaderFile {
  const char* path;  // relative to shaders/: "scan_local.comp", "common/ops.glsl"
  const char* text;
};

struct RuntimeVariant {
  const char* name;     // the kernel: "scan_local", "uniform_add" (core::kernel_name)
  const char* source;   // the entry file, a RuntimeShaderFile path
  const char* defines;  // "TYPE_CUSTOM,OP_CUSTOM,WORKGROUP_BLELLOCH"
};

const std::vector<RuntimeShaderFile>& runtime_shader_files();
const std::vector<RuntimeVariant>& custom_op_variants();

}  // namespace gpuscan::vk
