// Uses an installed gpuscan through pkg-config (scripts/test.sh):
//   c++ -std=c++20 pkgconfig_main.cpp $(pkg-config --cflags --libs gpuscan)
// Scans {3,1,7,0,4,1,6,3} inclusively and exits 0 only if the result is {3,4,11,11,15,16,22,25}. Also calls
// into the part of the library with no Vulkan in it (types), which must be in libgpuscan too, and compiles a
// custom operator (custom_op_check.hpp), whose shaderc archives gpuscan.pc must name.
#include <cstdint>
#include <cstring>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/gpuscan.hpp>

#include "custom_op_check.hpp"

int main() {
  try {
    if (gpuscan::parse_algorithm("reduce-then-scan") != gpuscan::Algorithm::reduce_then_scan) {
      std::cerr << "parse_algorithm failed\n";
      return 1;
    }
    auto ctx = gpuscan::Context::create();
    const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
    const std::vector<uint32_t> expected = {3, 4, 11, 11, 15, 16, 22, 25};
    const auto out = gpuscan::inclusive_scan(ctx, std::span<const uint32_t>(in));

    std::cout << "gpuscan " << gpuscan::version << " via pkg-config: inclusive_scan =";
    for (uint32_t v : out) std::cout << ' ' << v;
    std::cout << '\n';

#ifdef GPUSCAN_PACKAGE_VERSION   // pkg-config --modversion gpuscan
    if (std::strcmp(GPUSCAN_PACKAGE_VERSION, gpuscan::version) != 0) {
      std::cerr << "gpuscan.pc version " << GPUSCAN_PACKAGE_VERSION << " != header version " << gpuscan::version
                << '\n';
      return 1;
    }
#endif
    if (out != expected) {
      std::cerr << "wrong result: expected 3 4 11 11 15 16 22 25\n";
      return 1;
    }
    if (!custom_op_check(ctx)) return 1;
    return 0;
  } catch (const gpuscan::Error& e) {
    std::cerr << "gpuscan error: " << e.what() << '\n';
    return 1;
  }
}
