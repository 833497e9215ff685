// Uses the OpenGL backend of an installed gpuscan through find_package(gpuscan CONFIG COMPONENTS gl) and
// gpuscan::gl: scans {3,1,7,0,4,1,6,3} on a headless EGL context and exits 0 only if the exclusive scan is
// {0,3,4,11,11,15,16,22}. Links no EGL or GL library itself: gpuscan opens libEGL at run time.
#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/gl.hpp>

int main() {
  try {
    auto ctx = gpuscan::gl::Context::create();
    const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
    const std::vector<uint32_t> expected = {0, 3, 4, 11, 11, 15, 16, 22};
    const auto out = gpuscan::gl::exclusive_scan(ctx, std::span<const uint32_t>(in));

    std::cout << "gpuscan::gl on " << ctx.info().renderer << ": exclusive_scan =";
    for (uint32_t v : out) std::cout << ' ' << v;
    std::cout << '\n';
    if (out != expected) {
      std::cerr << "wrong result: expected 0 3 4 11 11 15 16 22\n";
      return 1;
    }
    return 0;
  } catch (const gpuscan::Error& e) {
    std::cerr << "gpuscan error: " << e.what() << '\n';
    return 1;
  }
}
