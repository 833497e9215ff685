// The convenience API: scan a std::vector on the GPU in a few lines. gpuscan creates the instance,
// device and buffers, uploads, scans, downloads and waits.
#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/gpuscan.hpp>

void print(const char* label, const std::vector<uint32_t>& values) {
  std::cout << label;
  for (uint32_t v : values) std::cout << ' ' << v;
  std::cout << '\n';
}

int main() try {
  auto ctx = gpuscan::Context::create();  // the first GPU, else lavapipe
  const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  print("exclusive result:  ", gpuscan::exclusive_scan(ctx, std::span<const uint32_t>(in)));
  print("exclusive expected:", {0, 3, 4, 11, 11, 15, 16, 22});
  print("inclusive result:  ", gpuscan::inclusive_scan(ctx, std::span<const uint32_t>(in)));
  print("inclusive expected:", {3, 4, 11, 11, 15, 16, 22, 25});
} catch (const gpuscan::Error& e) {
  std::cerr << "host_scan: " << e.what() << '\n';
  return 1;
}
