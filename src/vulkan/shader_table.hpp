// The SPIR-V modules embedded at build time from shaders/variants.cmake (see cmake/Shaders.cmake): one
// .tar.xz per kernel and element type, unpacked when a module is first needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuscan::vk {

struct EmbeddedShader {
  const char* name;       // "<kernel>.<type>[.<workgroup algorithm>]"
  const uint8_t* archive;  // the .tar.xz of its group
  size_t archive_bytes;
  const char* member;      // its file in the archive
};

// The library's modules (GPUSCAN_SHADER_VARIANTS).
const std::vector<EmbeddedShader>& embedded_shaders();

// The module's SPIR-V words, unpacked and checked (the archive's CRC-64, the SPIR-V magic number). Thread-safe;
// the last few archives unpacked are kept, as pipelines of one group tend to be built together. A module that
// fails the checks is a corrupt build: throws Error(Errc::invalid_argument) naming it.
std::vector<uint32_t> spirv_words(const EmbeddedShader& shader);

}  // namespace gpuscan::vk
