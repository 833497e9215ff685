// Segmented scans in tests of both backends: segment patterns, the heads (flags or keys) that encode
// them, and the comparison with the CPU reference (cpu::segmented_scan).
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "gpuscan/reference.hpp"
#include "gpuscan/segmented.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {

enum class Pattern { singletons, random, one_segment };
inline const char* name(Pattern p) {
  return p == Pattern::singletons ? "segments of length 1" : p == Pattern::random ? "random segments" : "one segment";
}

// Which elements start a segment (element 0 always does).
inline std::vector<uint8_t> make_starts(size_t n, Pattern pattern, std::mt19937_64& rng) {
  std::vector<uint8_t> starts(n, 0);
  if (n) starts[0] = 1;
  if (pattern == Pattern::singletons) std::fill(starts.begin(), starts.end(), 1);
  if (pattern == Pattern::random) {
    // Mean lengths from 2 to beyond a tile, so segments both end inside tiles and span several.
    const uint64_t mean = std::array<uint64_t, 4>{2, 19, 300, 5000}[rng() % 4];
    for (size_t i = 1; i < n; ++i) starts[i] = rng() % mean == 0;
  }
  return starts;
}

// The heads buffer's bytes for `starts`: flags (random non-zero words at starts; element 0's flag random,
// as it starts a segment anyway), u32 keys (random steps at starts), u64 keys (a start changes the high
// word or the low word only, so both halves are compared).
inline std::vector<std::byte> make_heads(const std::vector<uint8_t>& starts, SegmentHeads kind, std::mt19937_64& rng) {
  const size_t n = starts.size();
  std::vector<std::byte> bytes;
  auto append = [&](auto v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
  };
  uint64_t key = rng();
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case SegmentHeads::flags:
        append(static_cast<uint32_t>(starts[i] || (i == 0 && rng() % 2) ? (rng() | 1) : 0));
        break;
      case SegmentHeads::keys_u32:
        if (i > 0 && starts[i]) key = static_cast<uint32_t>(key + 1 + rng() % 1000);
        append(static_cast<uint32_t>(key));
        break;
      case SegmentHeads::keys_u64:
        if (i > 0 && starts[i]) key += rng() % 2 ? (uint64_t{1} << 32) : 1;
        append(key);
        break;
    }
  }
  return bytes;
}

// Exact except float sums, which are checked against a wider reference within a bound that restarts
// with every segment (cpu::segmented_float_tolerance).
template <class T>
::testing::AssertionResult matches_segmented(const std::vector<T>& input, const std::vector<uint8_t>& starts,
                                             const std::vector<T>& got, ScanKind kind, Op op) {
  if (got.size() != input.size()) return ::testing::AssertionFailure() << "size " << got.size();
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add) {
      using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
      const std::vector<Wide> wide(input.begin(), input.end());
      const auto expected = cpu::segmented_scan<Wide>(wide, starts, kind);
      const auto tol = cpu::segmented_float_tolerance<T>(input, starts, kind);
      for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(static_cast<Wide>(got[i]) - expected[i]) <= tol[i]))
          return ::testing::AssertionFailure() << "index " << i << " of " << got.size() << ": got " << got[i]
                                               << ", expected " << static_cast<double>(expected[i]) << " +- " << tol[i];
      return ::testing::AssertionSuccess();
    }
  }
  const auto expected = cpu::segmented_scan<T>(input, starts, kind, op);
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "index " << i << " of " << got.size() << " (starts a segment: "
                                           << int(starts[i]) << "): got " << +got[i] << ", expected " << +expected[i];
  return ::testing::AssertionSuccess();
}

// The suites' small tiles: W = 32, K = 1 (B = 128), so B^2 + 1 runs three levels.
inline ScanConfig small_tiles(DataType type, Op op, ScanKind kind) {
  ScanConfig c;
  c.type = type;
  c.op = op;
  c.kind = kind;
  c.workgroup_size = 32;
  c.vectors_per_lane = 1;
  return c;
}

}  // namespace gpuscan::test
