// The SPIR-V modules embedded at build time from shaders/variants.cmake (see cmake/Shaders.cmake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuscan::vk {

struct EmbeddedShader {
  const char* name;      // "<kernel>.<type>[.<workgroup algorithm>]"
  const uint32_t* words;
  size_t size_bytes;
};

// The library's modules (GPUSCAN_SHADER_VARIANTS).
const std::vector<EmbeddedShader>& embedded_shaders();
// The benchmarks' own kernels (GPUSCAN_BENCH_SHADER_VARIANTS), linked into the benchmarks only and given to
// a Context with Context::Impl::add_module.
const std::vector<EmbeddedShader>& bench_shaders();

}  // namespace gpuscan::vk
