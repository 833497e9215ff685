#include "core/sort_plan.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "core/plan_program.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

constexpr uint64_t kArrayAlignment = 64;
constexpr uint32_t kDefaultWorkgroup = 256;
constexpr uint32_t kMaxCounterRows = 16;  // the default W keeps the ballot ranking's counters to 16 rows
constexpr uint32_t kDefaultKeysPerLane = 8;
constexpr uint64_t kMaxSplitTile = 1u << 16;  // the subgroup-free ranking packs tile positions in 16 bits

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

// Shared memory of the downsweep and Onesweep kernels: sh_sort, three arrays of RADIX words, and
// Onesweep's fourth (the tile's digit counts, common/radix_count.glsl) and tile index; without subgroups
// also the workgroup sum's W words (common/workgroup_sum.glsl).
uint64_t shared_bytes(const SortShape& s) {
  return (uint64_t{s.shared_words} + 4 * kSortRadix + 1 + (s.subgroups ? 0 : s.workgroup_size)) * 4;
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

Program sort_program(const SortLayout& l, const SortRequest& q) {
  const uint32_t kbytes = element_size(q.config.key_type), vbytes = q.config.value_bytes;
  const uint64_t count = q.count;
  Program program;
  program.buffer_names.assign(std::begin(sort_buffer_names), std::end(sort_buffer_names));
  if (q.count_from) {  // the count clamped to the bound (and the status word) into the layout's words
    IndirectCountParams shape;
    shape.bound = count;
    shape.block_size = static_cast<uint32_t>(l.shape.tile());
    shape.is_64bit = q.count_64bit;
    shape.max_groups_x = q.limits.max_groups_x;
    shape.levels = l.indirect->levels;
    Program words;
    words.dispatch(indirect_count_command(indirect_count_dispatch(*l.indirect), 4, shape, q.count_status, false));
    const Place at[] = {{sort_temp}, {sort_temp}, {sort_temp}, {sort_count}, {sort_status}};  // PlanBuffer's order
    append_placed(program, std::move(words), at);
    if (count == 0) return program;  // no key to sort: the status word alone
    program.barrier();
  }
  const std::string key_name = kbytes == 8 ? "k64" : "k32";
  const std::string value_name = vbytes ? (vbytes == 8 ? ".v64" : ".v32") : "";
  const std::string addressed = q.device_address ? ".bda" : "";
  const PipelineKey upsweep = sort_kernel_key(l.shape, "sort_upsweep." + key_name + addressed);
  const PipelineKey downsweep =
      sort_kernel_key(l.shape, "sort_downsweep." + key_name + value_name + addressed + q.downsweep_suffix);
  PipelineKey onesweep = sort_kernel_key(l.shape, "sort_onesweep." + key_name + value_name);
  onesweep.spin_limit = q.spin_limit;
  onesweep.withhold_first_tile = q.withhold_first_tile;
  uint32_t gx = 0, gy = 0;
  grid_for(l.tiles, q.limits, gx, gy);
  const Bind counts{sort_temp, l.count_words / 4, l.counts, 4};
  // The digit counts' scan, in place, its scratch at l.scan_temp.
  auto scan_counts = [&] {
    const Place at[] = {{sort_temp, l.count_words}, {sort_temp, l.count_words}, {sort_temp, l.scan_temp},
                        {sort_temp}, {sort_temp}};  // PlanBuffer's order
    program.barrier();
    append_placed(program, q.counts_scan(l.counts), at);
    program.barrier();
  };
  // An array a pass reads or writes: its binding, or with device addresses the digit counts' (which the
  // kernel does not read through that slot) and its address.
  struct Array {
    Bind binding;
    std::optional<Bind> address;
  };
  auto array = [&](uint8_t buffer, uint64_t first, uint32_t esize) {
    const Bind range{buffer, first, count, esize};
    return q.device_address ? Array{counts, range} : Array{range, std::nullopt};
  };
  const Array keys_out = array(sort_keys_out, 0, kbytes);
  const Array keys_temp = array(sort_temp, l.keys / kbytes, kbytes);
  Array keys_from = array(sort_keys_in, 0, kbytes);
  Array values_out = keys_out, values_temp = keys_out, values_from = keys_out;  // unread without values
  if (vbytes) {
    values_out = array(sort_values_out, 0, vbytes);
    values_temp = array(sort_temp, l.values / vbytes, vbytes);
    values_from = q.indices ? values_out : array(sort_values_in, 0, vbytes);
  }
  const uint32_t flags = sort_key_flags(q.config);
  const Bind count_words = q.count_from ? Bind{sort_temp, l.indirect->first, l.indirect->elements, 4} : counts;
  // Word 13: 0, or 1 + where the count's words start in binding 5 (n is the words' first).
  const Param dynamic = q.count_from ? Param::offset(5, 1, 1) : Param::word(0);
  // Onesweep: the counts and states as 64-bit words, every pass's counts first.
  const Bind words = l.onesweep ? Bind{sort_temp, l.count_words / 8, (l.states + l.state_bytes - l.count_words) / 8, 8}
                                : counts;
  auto word = [](uint64_t v) { return Param::word(static_cast<uint32_t>(v)); };
  if (l.onesweep) {
    program.fill(sort_temp, l.count_words, l.counts * 4);
    program.barrier();
    cmd::Dispatch d;
    d.key = sort_kernel_key(l.shape, "sort_histogram." + key_name);
    d.groups_x = static_cast<uint32_t>(std::max<uint64_t>(
        1, std::min<uint64_t>({(count + l.shape.workgroup_size - 1) / l.shape.workgroup_size, 2048,
                               q.limits.max_groups_x})));
    d.bindings = {keys_from.binding, keys_from.binding, counts, keys_from.binding, keys_from.binding, count_words};
    d.params = {word(count), word(l.passes), word(d.groups_x), word(l.bits.begin), word(l.bits.end - l.bits.begin),
                word(flags), Param::offset(0), word(0), Param::offset(2), word(0), word(0), word(0), word(0), dynamic};
    program.dispatch(std::move(d));
    if (q.stop == SortStop::counts) return program;
    scan_counts();
    if (q.stop == SortStop::counts_and_scan) return program;
  }
  constexpr uint32_t address_word = 14;  // SortParams' keys_in_address
  for (uint32_t pass = 0; pass < l.passes; ++pass) {
    const bool to_output = (l.passes - 1 - pass) % 2 == 0;
    const Array& keys_to = to_output ? keys_out : keys_temp;
    const Array& values_to = to_output ? values_out : values_temp;
    const uint32_t shift = l.bits.begin + pass * kSortDigitBits;
    const uint32_t bits = std::min(kSortDigitBits, l.bits.end - shift);
    cmd::Dispatch d;
    d.bindings = {keys_from.binding, keys_to.binding, l.onesweep ? words : counts, values_from.binding,
                  values_to.binding, count_words};
    d.params = {word(count), word(l.tiles), word(gx), word(shift), word(l.bits.end > l.bits.begin ? bits : 0),
                word(flags | (pass == 0 && q.indices ? kSortIndexValues : 0)), Param::offset(0), Param::offset(1),
                l.onesweep ? Param::offset(2, 2, pass * kSortRadix) : Param::offset(2), Param::offset(3),
                Param::offset(4),
                // Onesweep: where the tile states start, in the 64-bit words of binding 2.
                l.onesweep ? Param::offset(2, 1, static_cast<uint32_t>((l.states - l.count_words) / 8)) : word(0),
                word(pass), dynamic};
    if (q.device_address) {
      d.params.resize(address_word, word(0));
      for (const Array* a : {&std::as_const(keys_from), &keys_to, &std::as_const(values_from), &values_to}) {
        d.params.push_back(Param::address(*a->address, false));
        d.params.push_back(Param::address(*a->address, true));
      }
    }
    d.groups_x = gx;
    d.groups_y = gy;
    if (l.onesweep) {  // the tile counter and states cleared, then one dispatch
      program.barrier();
      program.fill(sort_temp, l.states, l.state_bytes);
      program.barrier();
      d.key = onesweep;
      program.dispatch(std::move(d));
    } else {
      d.key = upsweep;
      program.dispatch(d);
      if (q.stop == SortStop::counts) return program;
      scan_counts();
      if (q.stop == SortStop::counts_and_scan) return program;
      d.key = downsweep;
      program.dispatch(std::move(d));
    }
    if (pass + 1 < l.passes) program.barrier();
    keys_from = keys_to;
    values_from = values_to;
  }
  return program;
}

}  // namespace gpuscan::core
