// CPU reference of the radix sort (gpuscan/sort.hpp): public and header-only, used by the tests and by the
// CLI's --verify: the stable order of the keys as std::stable_sort gives it. Over every bit of the key the
// comparison is the numbers' own (floats as numpy orders them: -0.0 == +0.0, every NaN after +inf), written independently of
// the GPU's bit transform; a bit range compares the range's bits of the ordered key (key_order_bits).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

namespace gpuscan::cpu {

// The ordered key: unsigned as is, signed with the sign bit flipped, floats by IEEE order with -0.0 as
// +0.0 and every NaN all ones (gpuscan/sort.hpp).
template <class K>
uint64_t key_order_bits(K key) {
  constexpr int bits = sizeof(K) * 8;
  using U = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;
  const U sign = U{1} << (bits - 1);
  U u;
  std::memcpy(&u, &key, sizeof(K));
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(key)) return static_cast<U>(~U{0});
    if (u == sign) u = 0;
    return (u & sign) ? static_cast<U>(~u) : static_cast<U>(u | sign);
  } else if constexpr (std::is_signed_v<K>) {
    return static_cast<U>(u ^ sign);
  } else {
    return u;
  }
}

// Positions of `keys` in stable sorted order. end_bit 0 = the key's width; [0, width) compares numbers.
template <class K>
std::vector<uint32_t> stable_sort_order(std::span<const K> keys, bool descending = false, uint32_t begin_bit = 0,
                                        uint32_t end_bit = 0) {
  constexpr uint32_t width = sizeof(K) * 8;
  if (end_bit == 0) end_bit = width;
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  auto less = [&](uint32_t a, uint32_t b) {
    const K x = keys[a], y = keys[b];
    if (begin_bit == 0 && end_bit == width) {
      if constexpr (std::is_floating_point_v<K>) {
        if (std::isnan(x)) return false;
        if (std::isnan(y)) return true;
      }
      return x < y;
    }
    const uint64_t mask = end_bit - begin_bit == 64 ? ~uint64_t{0} : (uint64_t{1} << (end_bit - begin_bit)) - 1;
    // Shifted as 64 bits: an empty range at the top of a 32-bit key has begin_bit 32.
    const uint64_t bx = begin_bit >= 64 ? 0 : (uint64_t{key_order_bits(x)} >> begin_bit) & mask;
    const uint64_t by = begin_bit >= 64 ? 0 : (uint64_t{key_order_bits(y)} >> begin_bit) & mask;
    return bx < by;
  };
  if (descending)
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return less(b, a); });
  else
    std::stable_sort(order.begin(), order.end(), less);
  return order;
}

}  // namespace gpuscan::cpu
