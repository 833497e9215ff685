// Uses an installed gpuscan through find_package(gpuscan CONFIG): scans {3,1,7,0,4,1,6,3} on the default
// device and exits 0 only if the exclusive scan is {0,3,4,11,11,15,16,22}; then compiles a custom operator
// (custom_op_check.hpp), which a static libgpuscan links from shaderc's archives.
#include <cstdint>
#include <cstring>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/gpuscan.hpp>

#include "custom_op_check.hpp"

int main() {
  try {
    auto ctx = gpuscan::Context::create();
    const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
    const std::vector<uint32_t> expected = {0, 3, 4, 11, 11, 15, 16, 22};
    const auto out = gpuscan::exclusive_scan(ctx, std::span<const uint32_t>(in));

    std::cout << "gpuscan " << gpuscan::version << " on " << ctx.device_info().name << ": exclusive_scan =";
    for (uint32_t v : out) std::cout << ' ' << v;
    std::cout << '\n';

#ifdef GPUSCAN_PACKAGE_VERSION
    if (std::strcmp(GPUSCAN_PACKAGE_VERSION, gpuscan::version) != 0) {
      std::cerr << "package version " << GPUSCAN_PACKAGE_VERSION << " != header version " << gpuscan::version << '\n';
      return 1;
    }
#endif
    if (out != expected) {
      std::cerr << "wrong result: expected 0 3 4 11 11 15 16 22\n";
      return 1;
    }
    if (!custom_op_check(ctx)) return 1;
    return 0;
  } catch (const gpuscan::Error& e) {
    std::cerr << "gpuscan error: " << e.what() << '\n';
    return 1;
  }
}
