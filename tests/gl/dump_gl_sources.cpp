// dump_gl_sources DIR: writes every OpenGL variant (shaders::gl_variants()) as the GL backend assembles it
// (gl/program_source.hpp), with two sets of constants, to DIR/<variant>.<set>.comp, for
// check_gl_sources.cmake to compile with glslang's OpenGL rules. A custom operator's kernel gets a sample
// snippet where the caller's goes.
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "gl/program_source.hpp"
#include "shaders/embedded_sources.hpp"

namespace {

constexpr const char* sample_snippet =
    "#define T uvec2\nT identity() { return T(0u); }\nT combine(T a, T b) { return a + b; }\n";

// Constants far apart: a large and a small workgroup, each flag both ways, both head sources, both sort
// shared-memory shapes.
gpuscan::PipelineKey constant_set(int which) {
  gpuscan::PipelineKey key;
  if (which == 0) {
    key.workgroup_size = 256; key.inclusive = true; key.use_aux = true; key.vectors_per_lane = 4;
    key.vector_aligned = false; key.spin_limit = 64; key.predicate = 3; key.heads = 1; key.in_place = true;
    key.op = 2;  // max
    key.sort_rows = 8; key.sort_shared_words = 2048;  // the ballot ranking's counters, a tile of 256 x 4
  } else {
    key.workgroup_size = 32; key.vectors_per_lane = 1; key.spin_limit = 64; key.heads = 2;
    key.withhold_first_tile = true; key.late_fallback = true; key.tiles_per_workgroup = 4; key.prefix_stride = 2;
    key.op = 3;  // mul
    key.sort_rows = 0; key.sort_shared_words = 64;  // the ranking without subgroups: a tile of 32 x 1, 2 words a key
  }
  return key;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  try {
    for (const gpuscan::shaders::Variant& variant : gpuscan::shaders::gl_variants()) {
      const std::string name = variant.name;
      const bool custom = name.rfind("custom.", 0) == 0;
      for (int which = 0; which < 2; ++which) {
        const auto source = gpuscan::gl::program_source(
            name, constant_set(which).constants(), custom ? std::optional<std::string_view>(sample_snippet) : std::nullopt);
        std::ofstream(std::string(argv[1]) + "/" + name + "." + std::to_string(which) + ".comp") << source.text;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
