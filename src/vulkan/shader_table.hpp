// The SPIR-V modules embedded at build time from shaders/variants.cmake (see cmake/Shaders.cmake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuscan::vk {

struct EmbeddedShader {
  const char* name;      // "<kernel>.<type>.<op>[.<workgroup algorithm>]"
  const uint32_t* words;
  size_t size_bytes;
};

const std::vector<EmbeddedShader>& embedded_shaders();

}  // namespace gpuscan::vk
