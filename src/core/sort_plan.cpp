#include "core/sort_plan.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

constexpr uint64_t kArrayAlignment = 64;
constexpr uint32_t kDefaultWorkgroup = 256;
constexpr uint32_t kMaxCounterRows = 16;  // the default W keeps the ballot ranking's counters to 16 rows
constexpr uint32_t kDefaultKeysPerLane = 8;
constexpr uint64_t kMaxSplitTile = 1u << 16;  // the subgroup-free ranking packs tile positions in 16 bits

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

// Shared memory of the downsweep and Onesweep kernels: sh_sort, three arrays of RADIX words and the
// Onesweep tile index; without subgroups also the workgroup sum's W words (common/workgroup_sum.glsl).
uint64_t shared_bytes(const SortShape& s) {
  return (uint64_t{s.shared_words} + 3 * kSortRadix + 1 + (s.subgroups ? 0 : s.workgroup_size)) * 4;
}

}  // namespace

SortBitRange sort_bit_range(const SortConfig& config) {
  const uint32_t width = element_size(config.key_type) * 8;
  const uint32_t end = config.end_bit == 0 ? width : config.end_bit;
  if (end > width || config.begin_bit > end)
    throw Error(Errc::invalid_argument, "sort bit range [" + std::to_string(config.begin_bit) + ", " +
                                            std::to_string(config.end_bit) + ") does not lie in the " +
                                            std::to_string(width) + "-bit " + std::string(to_string(config.key_type)) +
                                            " key: need begin_bit <= end_bit <= " + std::to_string(width) +
                                            " (end_bit 0 = " + std::to_string(width) + ")");
  return {config.begin_bit, end};
}

uint32_t sort_pass_count(const SortBitRange& bits) {
  return std::max<uint32_t>(1, (bits.end - bits.begin + kSortDigitBits - 1) / kSortDigitBits);
}

void check_sort_values(const SortConfig& config, bool pairs) {
  if (!pairs && config.value_bytes != 0)
    throw Error(Errc::invalid_argument, "record_sort sorts keys only: SortConfig::value_bytes must be 0, not " +
                                            std::to_string(config.value_bytes) + " (record_sort_pairs moves values)");
  if (pairs && config.value_bytes != 4 && config.value_bytes != 8)
    throw Error(Errc::invalid_argument, "sort values are 4 or 8 bytes (SortConfig::value_bytes), not " +
                                            std::to_string(config.value_bytes));
}

uint32_t sort_key_flags(const SortConfig& config) {
  uint32_t flags = config.descending ? kSortDescending : 0;
  if (config.key_type == DataType::i32 || config.key_type == DataType::i64) flags |= kSortKeySigned;
  if (config.key_type == DataType::f32 || config.key_type == DataType::f64) flags |= kSortKeyFloat;
  return flags;
}

SortShape sort_shape(const SortDevice& device, const SortConfig& config) {
  const bool subgroups = device.narrowest_subgroup != 0;
  const uint32_t narrowest = std::max<uint32_t>(device.narrowest_subgroup, 1);
  const uint32_t least = device.least_workgroup;
  const uint32_t most = std::bit_floor(device.max_invocations);
  uint32_t w = config.workgroup_size;
  if (w == 0) {
    const uint32_t preferred = subgroups ? std::min(kDefaultWorkgroup, kMaxCounterRows * narrowest) : kDefaultWorkgroup;
    w = std::clamp(preferred, least, std::max(least, most));
  } else if (!std::has_single_bit(w) || w < least || w > device.max_invocations) {
    throw Error(Errc::invalid_argument, "sort workgroup size " + std::to_string(w) + " is not a power of two from " +
                                            std::to_string(least) + " to " + std::to_string(device.max_invocations));
  }
  const uint32_t k_requested = config.keys_per_lane;
  if (k_requested != 0 && (!std::has_single_bit(k_requested) || k_requested > 32))
    throw Error(Errc::invalid_argument, "sort keys per lane " + std::to_string(k_requested) +
                                            " is not a power of two from 1 to 32");
  const uint32_t words_per_item = std::max<uint32_t>(element_size(config.key_type), std::max(config.value_bytes, 4u)) / 4;
  SortShape s{w, k_requested ? k_requested : kDefaultKeysPerLane, subgroups ? w / narrowest : 0, 0, subgroups};
  for (;;) {
    s.shared_words = static_cast<uint32_t>(std::max<uint64_t>(uint64_t{s.rows} * kSortRadix, s.tile() * words_per_item));
    const bool packs = subgroups || s.tile() <= kMaxSplitTile;
    if (packs && shared_bytes(s) <= device.max_shared_bytes) return s;
    if (k_requested != 0 || s.keys_per_lane == 1)
      throw Error(k_requested ? Errc::invalid_argument : Errc::unsupported,
                  !packs ? "the sort's tile of " + std::to_string(w) + " x " + std::to_string(s.keys_per_lane) +
                               " keys is more than the 65536 the ranking without subgroups takes; ask for a "
                               "smaller workgroup_size or keys_per_lane"
                         : "the sort's tile of " + std::to_string(w) + " x " + std::to_string(s.keys_per_lane) +
                               " keys needs " + std::to_string(shared_bytes(s)) +
                               " bytes of shared memory, more than the " + std::to_string(device.max_shared_bytes) +
                               " this device has; ask for a smaller workgroup_size or keys_per_lane");
    s.keys_per_lane /= 2;
  }
}

void check_sort_positions(uint64_t count) {
  if (count > UINT32_MAX)
    throw Error(Errc::too_large, "the sort takes at most 2^32 - 1 keys (u32 positions), not " + std::to_string(count));
}

void check_sort_count(uint64_t count, uint64_t fit, uint32_t key_bytes, uint32_t value_bytes, const char* limit) {
  check_sort_positions(count);
  if (count > fit)
    throw Error(Errc::too_large, "the sort binds its keys and values whole: at most " + std::to_string(fit) +
                                     " keys of " + std::to_string(key_bytes) + " bytes" +
                                     (value_bytes ? " with " + std::to_string(value_bytes) + "-byte values" : std::string()) +
                                     " on this device (" + limit + "), not " + std::to_string(count));
}

void size_sort_counts(SortLayout& l, uint64_t count) {
  if (count == 0) return;
  l.tiles = (count + l.shape.tile() - 1) / l.shape.tile();
  l.counts = (l.onesweep ? l.passes : l.tiles) * kSortRadix;
}

void place_sort_arrays(SortLayout& l, uint64_t count, uint32_t key_bytes, uint32_t value_bytes,
                       uint64_t scan_temp_bytes, bool indirect) {
  if (count > 0) {
    l.keys = 0;
    l.values = round_up(count * key_bytes, kArrayAlignment);
    l.count_words = round_up(l.values + count * value_bytes, kArrayAlignment);
    l.states = round_up(l.count_words + l.counts * 4, kArrayAlignment);
    l.state_bytes = l.onesweep ? 8 + l.tiles * kSortRadix * 8 : 0;
    l.scan_temp = round_up(l.states + l.state_bytes, kArrayAlignment);
    l.bytes = l.scan_temp + scan_temp_bytes;
  }
  if (indirect) {  // one level of words: the kernels read its n (a bound of 0 still sets the status)
    l.indirect = indirect_region(round_up(l.bytes, kArrayAlignment) / 4, 1, 4);
    l.bytes = (l.indirect->first + l.indirect->elements) * 4;
  }
}

PipelineKey sort_kernel_key(const SortShape& s, std::string variant) {
  PipelineKey key;
  key.variant = std::move(variant);
  key.workgroup_size = s.workgroup_size;
  key.vectors_per_lane = s.keys_per_lane;
  key.sort_rows = s.rows;
  key.sort_shared_words = s.shared_words;
  return key;
}

void check_sort_overlaps(std::span<const NamedRange> ranges) {
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j)
      if (overlaps(ranges[i].range, ranges[j].range))
        throw Error(Errc::invalid_argument, std::string(ranges[i].name) + " and " + ranges[j].name +
                                                " overlap: the sort reads its inputs in every pass and ping-pongs "
                                                "between the outputs and temp; give them disjoint ranges");
}

uint64_t check_sort_bytes(uint64_t key_bytes, uint64_t value_bytes, const SortConfig& config, bool indices) {
  const uint32_t kbytes = element_size(config.key_type), vbytes = config.value_bytes;
  if (key_bytes % kbytes != 0)
    throw Error(Errc::invalid_argument, "keys hold " + std::to_string(key_bytes) + " bytes, not a whole number of " +
                                            std::string(to_string(config.key_type)) + " keys");
  const uint64_t n = key_bytes / kbytes;
  check_sort_values(config, vbytes != 0);
  if (indices && vbytes != 4)
    throw Error(Errc::invalid_argument, "an argsort's positions are u32: SortConfig::value_bytes must be 4");
  if (vbytes && !indices && value_bytes != n * vbytes)
    throw Error(Errc::invalid_argument, "values hold " + std::to_string(value_bytes) + " bytes; " +
                                            std::to_string(n) + " keys take " + std::to_string(n * vbytes) +
                                            " bytes of " + std::to_string(vbytes) + "-byte values");
  return n;
}

}  // namespace gpuscan::core
