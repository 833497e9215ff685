// The radix sort's test cases for both backends (tests/gpu/sort_test.cpp, tests/gl/gl_sort_test.cpp): the
// reference (cpu/sort_reference.hpp, std::stable_sort) and the key distributions, with the sort itself a
// callable that runs it on one backend.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuscan/sort_reference.hpp"
#include "gpu_test_support.hpp"  // random_values, with_nans
#include "gpuscan/sort.hpp"
#include "gpuscan/sort_unique.hpp"

namespace gpuscan::test {

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

struct Sorted {
  std::vector<std::byte> keys, values;
};

// A count in GPU memory (SortArgs::count_from): the keys given are the bound, `count` what the GPU reads
// (as a u64 with `is_64bit`).
struct GpuCount {
  uint64_t count = 0;
  bool is_64bit = false;
};

// Bytes [from, bytes) of `data` still hold the poison.
inline void expect_poisoned(const std::byte* data, size_t from, size_t bytes, const char* what) {
  size_t touched = 0;
  for (size_t i = from; i < bytes; ++i) touched += data[i] != std::byte{0xA5};
  EXPECT_EQ(touched, 0u) << what << " written past the count (" << touched << " bytes)";
}

// Checks keys, argsort and (8-byte) pairs of `keys` against the reference: keys bit for bit. `run(keys,
// values, config, indices, gpu)` sorts on a backend and returns a Sorted. With `gpu`,
// `keys` are the bound and the reference sorts the first min(count, bound) of them.
template <class K, class Run>
void check_sort_with(Run run, const std::vector<K>& keys, SortConfig config, bool keys_only = true,
                     bool argsort = true, bool pairs64 = false, std::optional<GpuCount> gpu = std::nullopt) {
  config.key_type = data_type_of<K>::value;
  config.value_bytes = 0;
  const size_t n = gpu ? static_cast<size_t>(std::min<uint64_t>(gpu->count, keys.size())) : keys.size();
  const std::vector<uint32_t> order = cpu::stable_sort_order<K>(std::span(keys).first(n), config.descending,
                                                                config.begin_bit, config.end_bit);
  std::vector<K> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = keys[order[i]];
  const std::vector<std::byte> want_bytes = bytes_of(want);
  SCOPED_TRACE(std::string(to_string(config.key_type)) + ", n " + std::to_string(keys.size()) +
               (gpu ? ", count in GPU memory " + std::to_string(gpu->count) : std::string()) +
               (config.algorithm == SortAlgorithm::onesweep ? ", onesweep" : "") +
               (config.descending ? ", descending" : "") + ", bits [" + std::to_string(config.begin_bit) + ", " +
               std::to_string(config.end_bit) + ")");
  if (keys_only) {
    const Sorted got = run(std::as_bytes(std::span(keys)), {}, config, false, gpu);
    EXPECT_TRUE(got.keys == want_bytes) << "keys differ from std::stable_sort";
  }
  if (argsort) {
    const Sorted got = run(std::as_bytes(std::span(keys)), {}, config, true, gpu);
    EXPECT_TRUE(got.keys == want_bytes) << "argsort's keys differ from std::stable_sort";
    EXPECT_TRUE(got.values == bytes_of(order)) << "argsort differs from std::stable_sort's order";
  }
  if (pairs64) {  // values: each key's position times a large odd number, in both words
    std::vector<uint64_t> values(keys.size()), want_values(n);
    for (size_t i = 0; i < keys.size(); ++i) values[i] = i * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; ++i) want_values[i] = values[order[i]];
    const Sorted got = run(std::as_bytes(std::span(keys)), std::as_bytes(std::span(values)), config, false, gpu);
    EXPECT_TRUE(got.keys == want_bytes) << "pairs' keys differ from std::stable_sort";
    EXPECT_TRUE(got.values == bytes_of(want_values)) << "8-byte values differ from std::stable_sort's";
  }
}

// Random keys whose digits collide often: each key one of `distinct` random values.
template <class K>
std::vector<K> few_distinct(size_t n, size_t distinct, std::mt19937_64& rng) {
  const std::vector<K> pool = random_values<K>(distinct, rng);
  std::vector<K> v(n);
  for (auto& x : v) x = pool[rng() % distinct];
  return v;
}

template <class F>
std::vector<F> float_specials(size_t n, std::mt19937_64& rng) {
  using L = std::numeric_limits<F>;
  const F specials[] = {F(0), -F(0), L::infinity(), -L::infinity(), L::denorm_min(), -L::denorm_min(),
                        L::max(), L::lowest(), L::min(), F(1), F(-1)};
  std::vector<F> v = random_values<F>(n, rng);
  for (auto& x : v)
    if (rng() % 2) x = specials[rng() % std::size(specials)];
  for (int i = 0; i < 8; ++i) v = with_nans(v, rng);  // NaNs of both signs, quiet, signalling, payloads
  return v;
}

// Keys that stress the ranking: all equal, sorted, reversed, random in the low digit only, in the top
// digit only, and one key almost everywhere.
inline std::vector<std::vector<uint32_t>> adversarial_keys(size_t n, std::mt19937_64& rng) {
  std::vector<uint32_t> equal(n, 0xDEADBEEFu);
  std::vector<uint32_t> sorted = random_values<uint32_t>(n, rng);
  std::sort(sorted.begin(), sorted.end());
  std::vector<uint32_t> reversed(sorted.rbegin(), sorted.rend());
  std::vector<uint32_t> low_digit(n), high_digit(n), sparse(n);
  for (auto& x : low_digit) x = static_cast<uint32_t>(rng() & 0xFF);
  for (auto& x : high_digit) x = static_cast<uint32_t>(rng() & 0xFF) << 24;
  for (auto& x : sparse) x = (rng() % 64 == 0) ? static_cast<uint32_t>(rng()) : 7u;
  return {equal, sorted, reversed, low_digit, high_digit, sparse};
}

// Both signs around zero and the extremes.
inline std::vector<int64_t> signed_extremes(size_t n, std::mt19937_64& rng) {
  std::vector<int64_t> signs(n);
  const int64_t edges[] = {std::numeric_limits<int64_t>::min(), -1, 0, 1, std::numeric_limits<int64_t>::max()};
  // Wrapping past the extremes on purpose (in u64: signed overflow is undefined).
  for (auto& x : signs) x = static_cast<int64_t>(static_cast<uint64_t>(edges[rng() % 5]) + rng() % 3 - 1);
  return signs;
}

// sort_unique (numpy.unique of any input) on a backend, `unique(span<const K>)`, against the stable sort's
// order (cpu::stable_sort_order): runs of elements equal as numbers (-0 == 0, every NaN its own), each
// value the first of its run in input order, bit for bit.
template <class K, class Unique>
void check_sort_unique(Unique unique, const std::vector<K>& keys) {
  const std::vector<uint32_t> order = cpu::stable_sort_order<K>(keys, false, 0, 0);
  UniqueResult<K> want;
  want.inverse.resize(keys.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const K k = keys[order[i]];
    if (i == 0 || !(k == keys[order[i - 1]])) {
      want.values.push_back(k);
      want.index.push_back(order[i]);
      want.counts.push_back(0);
    }
    ++want.counts.back();
    want.inverse[order[i]] = static_cast<uint32_t>(want.values.size() - 1);
  }
  const UniqueResult<K> got = unique(std::span<const K>(keys));
  EXPECT_TRUE(bytes_of(got.values) == bytes_of(want.values))
      << got.values.size() << " values, " << want.values.size() << " expected (n = " << keys.size() << ")";
  EXPECT_EQ(got.index, want.index) << "index, n = " << keys.size();
  EXPECT_EQ(got.inverse, want.inverse) << "inverse, n = " << keys.size();
  EXPECT_EQ(got.counts, want.counts) << "counts, n = " << keys.size();
}

// Its cases for one key type: sizes around `tile` (the sort's tiles with `config`) and a few of the
// default shape's, few distinct values (long runs across tiles) or random ones, and floats' specials.
template <class K, class Unique>
void sort_unique_cases(Unique unique, uint64_t tile, std::mt19937_64& rng) {
  SCOPED_TRACE(std::string(to_string(data_type_of<K>::value)));
  for (const size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t(tile - 1), size_t(tile), size_t(tile + 1),
                         size_t(3 * tile + 5), size_t(rng() % 20000)}) {
    check_sort_unique<K>(unique, few_distinct<K>(n, 1 + rng() % 50, rng));
    if constexpr (std::is_floating_point_v<K>) check_sort_unique<K>(unique, float_specials<K>(n, rng));
    else check_sort_unique<K>(unique, random_values<K>(n, rng));
  }
}

}  // namespace gpuscan::test
