// Reductions with the convenience call: one value from a whole array, for several types and operators.
// gpuscan::reduce uploads, reduces on the GPU (a fixed tree of tile reductions) and returns the result.
#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/gpuscan.hpp>

int main() try {
  auto ctx = gpuscan::Context::create();
  const std::vector<uint32_t> counts = {3, 1, 7, 0, 4, 1, 6, 3};
  std::cout << "sum result:      " << gpuscan::reduce(ctx, std::span<const uint32_t>(counts)) << '\n';
  std::cout << "sum expected:    25\n";

  const std::vector<int64_t> temps = {-40, 12, 7, -3, 25, 0};
  std::cout << "min result:      " << gpuscan::reduce(ctx, std::span<const int64_t>(temps), gpuscan::Op::min) << '\n';
  std::cout << "min expected:    -40\n";
  std::cout << "max result:      " << gpuscan::reduce(ctx, std::span<const int64_t>(temps), gpuscan::Op::max) << '\n';
  std::cout << "max expected:    25\n";

  // Integer products wrap modulo 2^64: 2^40 * 2^30 = 2^70 = 0 (mod 2^64), times 5 is still 0.
  const std::vector<uint64_t> factors = {uint64_t{1} << 40, uint64_t{1} << 30, 5};
  std::cout << "product result:  " << gpuscan::reduce(ctx, std::span<const uint64_t>(factors), gpuscan::Op::mul)
            << '\n';
  std::cout << "product expected: 0\n";

  // A million doubles of 0.5: the sum is exact in any order.
  const std::vector<double> halves(1'000'000, 0.5);
  std::cout << "f64 sum result:  " << gpuscan::reduce(ctx, std::span<const double>(halves)) << '\n';
  std::cout << "f64 sum expected: 500000\n";

  // No elements: the identity of the operator.
  std::cout << "empty xor result:  " << gpuscan::reduce(ctx, std::span<const uint32_t>(), gpuscan::Op::bit_xor)
            << '\n';
  std::cout << "empty xor expected: 0\n";
} catch (const gpuscan::Error& e) {
  std::cerr << "reduce: " << e.what() << '\n';
  return 1;
}
