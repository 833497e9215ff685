// LSD radix sort: keys (and values that move with them) in ascending or descending order, stable.
// docs/sort.md is the guide. This header holds what every backend shares (the configuration) and names no
// graphics API; the calls are in gpuscan/vulkan/sort.hpp (included by gpuscan/vulkan.hpp) and, for OpenGL
// (the multipass algorithm only), in gpuscan/gl.hpp.
//
// Order of the key types: u32 and u64 as unsigned numbers, i32 and i64 as two's complement numbers, f32 and
// f64 as numpy's np.sort orders them: -inf < ... < -0.0 == +0.0 < ... < +inf < NaN, where -0.0 and +0.0
// are equal keys (they keep their input order) and every NaN, whatever its sign bit and payload, sorts
// after +inf, the NaNs in their input order. Keys come out bit for bit as they went in (NaN payloads,
// the sign of zero). Descending order is the reverse order of the keys with ties still in input order
// (so NaNs first); it is not the reverse of the ascending result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan {

// How each pass finds where a tile's keys go (docs/sort.md, "The kernels").
//   multipass  per pass: the tiles' digit counts, their scan (record_scan), the scatter -- three dispatches
//              that read the keys twice.
//   onesweep   the digit counts of every pass in one read first, then one dispatch per pass whose tiles
//              look back over earlier tiles' counts, with a fallback so that no workgroup depends on
//              another's progress. Needs 64-bit buffer atomics (shaderBufferInt64Atomics, as the
//              single-pass scan; Errc::unsupported otherwise).
//   automatic  multipass (Onesweep is not yet measured against it).
enum class SortAlgorithm : uint8_t { automatic, multipass, onesweep };

struct SortConfig {
  DataType key_type = DataType::u32;  // u32, i32, f32, u64, i64 or f64
  // Bytes per value: 0 for keys only (record_sort), 4 or 8 for pairs (record_sort_pairs), whose values
  // move as bit patterns (any 4- or 8-byte type).
  uint32_t value_bytes = 0;
  bool descending = false;
  // The bits of the ordered key that are sorted on: [begin_bit, end_bit), end_bit 0 = the key's width
  // (32 or 64). Keys that differ only outside the range are equal keys and keep their input order. A
  // range of b bits takes ceil(b / 8) passes (at least one), so keys known to use only their low 20 bits
  // sort in 3 passes instead of 4 with end_bit = 20. For i32/i64 and floats the range is of the ordered
  // key (gpuscan/vulkan/sort.hpp says which transform); the full range is what orders them as numbers.
  uint32_t begin_bit = 0;
  uint32_t end_bit = 0;
  // Invocations per workgroup W: 0 = the default (256, or 16 times the device's narrowest subgroup if
  // that is smaller), otherwise a power of two from 32 (or the widest subgroup) to the device's limit.
  uint32_t workgroup_size = 0;
  // Keys per invocation K, a tile being W·K keys: 0 = the default (8, less where shared memory is short),
  // otherwise a power of two from 1 to 32.
  uint32_t keys_per_lane = 0;
  SortAlgorithm algorithm = SortAlgorithm::automatic;
};

// What the untyped convenience calls (sort_bytes) return: the sorted keys and their values, as bytes.
struct SortedBytes {
  std::vector<std::byte> keys, values;
};

namespace detail {
template <class T>
std::vector<T> from_bytes(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// The typed convenience calls of both backends over their sort_bytes, given as
// `bytes(keys, values, config, indices)`: key_type and value_bytes come from the types.
template <Element K, class Bytes>
std::vector<K> sort_via(const Bytes& bytes, std::span<const K> keys, SortConfig config) {
  config.key_type = data_type_of<K>::value;
  config.value_bytes = 0;
  return from_bytes<K>(bytes(std::as_bytes(keys), std::span<const std::byte>(), config, false).keys);
}
template <Element K, class Bytes>
std::vector<uint32_t> argsort_via(const Bytes& bytes, std::span<const K> keys, SortConfig config) {
  config.key_type = data_type_of<K>::value;
  config.value_bytes = 4;
  return from_bytes<uint32_t>(bytes(std::as_bytes(keys), std::span<const std::byte>(), config, true).values);
}
template <Element K, class V, class Bytes>
std::pair<std::vector<K>, std::vector<V>> sort_pairs_via(const Bytes& bytes, std::span<const K> keys,
                                                         std::span<const V> values, SortConfig config) {
  config.key_type = data_type_of<K>::value;
  config.value_bytes = sizeof(V);
  SortedBytes out = bytes(std::as_bytes(keys), std::as_bytes(values), config, false);
  return {from_bytes<K>(out.keys), from_bytes<V>(out.values)};
}
}  // namespace detail

}  // namespace gpuscan
