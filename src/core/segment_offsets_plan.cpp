#include "core/segment_offsets_plan.hpp"

#include <algorithm>
#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

constexpr uint64_t array_alignment = 64;

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

OffsetsRange temp_range(uint64_t byte_offset, uint64_t count, uint32_t unit) {
  return {OffsetsSlot::temp, byte_offset / unit, count, unit};
}

}  // namespace

ScanConfig offsets_scan_config(const ReduceConfig& c) {
  return {.type = c.type, .kind = ScanKind::inclusive, .workgroup_size = c.workgroup_size,
          .vectors_per_lane = c.vectors_per_lane, .op = c.op};
}

void check_offsets_count(uint64_t count, uint64_t fit, DataType type) {
  if (count > fit || count > UINT32_MAX - 1)
    throw Error(Errc::too_large, "segments by offsets bind their head flags (and a reduction's partial results) "
                                 "once: at most " + std::to_string(std::min<uint64_t>(fit, UINT32_MAX - 1)) +
                                 " elements of " + std::string(to_string(type)) + " on this device, not " +
                                 std::to_string(count) + "; run the data in pieces of fewer elements");
}

void check_segment_count(uint64_t segments) {
  if (segments > UINT32_MAX - 2)
    throw Error(Errc::too_large, "segments by offsets are at most 2^32 - 2 (u32 offsets), not " +
                                     std::to_string(segments));
}

void check_host_offsets(std::span<const uint32_t> offsets, uint64_t n) {
  if (offsets.empty())
    throw Error(Errc::invalid_argument, "offsets is empty: S segments take S + 1 offsets (one, {0}, for none)");
  for (size_t s = 0; s + 1 < offsets.size(); ++s)
    if (offsets[s + 1] < offsets[s])
      throw Error(Errc::invalid_argument, "offsets decrease at index " + std::to_string(s + 1) + " (" +
                                              std::to_string(offsets[s]) + " then " + std::to_string(offsets[s + 1]) +
                                              "): they must be non-decreasing");
  if (offsets.back() > n)
    throw Error(Errc::invalid_argument, "the last offset is " + std::to_string(offsets.back()) +
                                            ", past the end of the " + std::to_string(n) + " values");
}

OffsetsInput check_offsets_input(uint64_t value_bytes, std::span<const uint32_t> offsets, DataType type) {
  const uint32_t esize = element_size(type);
  if (value_bytes % esize != 0)
    throw Error(Errc::invalid_argument, "values hold " + std::to_string(value_bytes) +
                                            " bytes, not a whole number of " + std::string(to_string(type)) +
                                            " elements");
  const uint64_t n = value_bytes / esize;
  check_host_offsets(offsets, n);
  check_segment_count(offsets.size() - 1);
  return {n, offsets.size() - 1, (offsets.size() - 1) * esize};
}

OffsetsReduceLayout offsets_reduce_layout(uint64_t count, DataType type, TileShape shape,
                                          const std::function<ScanTemp(uint64_t tiles)>& scan_temp) {
  const uint64_t esize = element_size(type);
  OffsetsReduceLayout l;
  l.shape = shape;
  const uint64_t span = uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4;
  l.tiles = (count + span - 1) / span;
  const ScanTemp scan = scan_temp(l.tiles);
  l.scan_temp_size = scan.size;
  l.scan_temp_alignment = scan.alignment;
  l.alignment = std::max<uint64_t>(scan.alignment, 4);
  if (count == 0) return l;
  l.words = round_up(3 * l.tiles * esize, array_alignment);
  l.scan_temp = round_up(l.words + 16 * l.tiles, std::max<uint64_t>(array_alignment, scan.alignment));
  l.bytes = l.scan_temp + scan.size;
  return l;
}

std::string offsets_variant_name(const OffsetsDispatch& d, DataType type) {
  std::string name = offsets_kernel_name(d.kernel);
  if (d.typed) name += "." + std::string(to_string(type));
  return name;
}

void fill_offsets_words(const OffsetsDispatch& d, std::span<const uint32_t> element_offsets, uint32_t* params) {
  std::copy(d.words.begin(), d.words.end(), params);
  for (const auto& [word, binding] : d.offset_words) params[word] = element_offsets[binding];
}

const char* offsets_kernel_name(OffsetsKernel kernel) {
  switch (kernel) {
    case OffsetsKernel::bounds: return "seg_offsets_bounds";
    case OffsetsKernel::tiles: return "seg_offsets_tiles";
    case OffsetsKernel::finish: return "seg_offsets_finish";
    case OffsetsKernel::gather: return "seg_offsets_gather";
  }
  return "?";
}

std::vector<OffsetsStep> plan_offsets_reduce(const OffsetsReduceLayout& l, uint64_t count, uint64_t segments,
                                             DataType type, const PlanLimits& limits) {
  const uint32_t esize = element_size(type);
  const uint32_t w = l.shape.workgroup_size;
  const OffsetsRange offsets{OffsetsSlot::offsets, 0, segments + 1, 4};
  const OffsetsRange out{OffsetsSlot::output, 0, segments, esize};
  // One workgroup per `w` items (bounds, finish, gather) or per tile.
  auto dispatch = [&](OffsetsKernel kernel, uint64_t blocks, std::vector<OffsetsRange> bindings) {
    OffsetsDispatch d;
    d.kernel = kernel;
    d.bindings = std::move(bindings);
    d.workgroup_size = w;
    grid_for(blocks, limits, d.groups_x, d.groups_y);
    return d;
  };
  auto per_item = [&](uint64_t items) { return std::max<uint64_t>(1, (items + w - 1) / w); };
  std::vector<OffsetsStep> steps;
  if (count == 0) {  // every segment is empty: identities only (binding 0 is bound but not read)
    const uint64_t blocks = per_item(segments);
    OffsetsDispatch d = dispatch(OffsetsKernel::gather, blocks, {out, out, out, out, offsets});
    d.words[0] = 0;
    d.words[4] = d.groups_x;
    d.words[5] = static_cast<uint32_t>(blocks);
    d.words[10] = static_cast<uint32_t>(segments);
    d.offset_words = {{1, 0}, {2, 1}, {11, 4}};
    steps.push_back(std::move(d));
    return steps;
  }
  const uint32_t span = w * l.shape.vectors_per_lane * 4;
  const uint64_t words = l.words / 4;  // in u32
  {  // each tile's range of offsets
    const OffsetsRange bounds = temp_range(l.words + 8 * l.tiles, 2 * l.tiles, 4);
    OffsetsDispatch d = dispatch(OffsetsKernel::bounds, per_item(l.tiles), {bounds, bounds, bounds, bounds, offsets});
    d.typed = false;
    d.words = {static_cast<uint32_t>(l.tiles), span, static_cast<uint32_t>(segments), 0, 0, d.groups_x};
    d.offset_words = {{3, 4}, {4, 1}};
    steps.push_back(std::move(d));
  }
  steps.push_back(Barrier{});
  {  // the tiles
    const OffsetsRange in{OffsetsSlot::input, 0, count, esize};
    const OffsetsRange tile_values = temp_range(0, 2 * l.tiles, esize);
    const OffsetsRange tile_words{OffsetsSlot::temp, words, 4 * l.tiles, 4};
    OffsetsDispatch d = dispatch(OffsetsKernel::tiles, l.tiles, {in, out, tile_values, in, offsets, tile_words});
    d.vectors_per_lane = l.shape.vectors_per_lane;
    d.words[0] = static_cast<uint32_t>(count);
    d.words[4] = d.groups_x;
    d.words[5] = static_cast<uint32_t>(l.tiles);
    d.words[12] = static_cast<uint32_t>(segments);
    d.offset_words = {{1, 0}, {2, 1}, {3, 2}, {10, 4}, {13, 5}};
    steps.push_back(std::move(d));
  }
  if (l.tiles == 1) return steps;  // every segment that ends in the only tile started there
  steps.push_back(Barrier{});
  steps.push_back(OffsetsScan{l.tiles, 0, l.words, 2 * l.tiles * esize, l.scan_temp});
  steps.push_back(Barrier{});
  {  // the pieces of segments that cross tiles
    const OffsetsRange scanned = temp_range(2 * l.tiles * esize, l.tiles, esize);
    const OffsetsRange pieces = temp_range(l.tiles * esize, l.tiles, esize);
    const OffsetsRange piece_segments{OffsetsSlot::temp, words + l.tiles, l.tiles, 4};
    const uint64_t blocks = per_item(l.tiles);
    OffsetsDispatch d = dispatch(OffsetsKernel::finish, blocks, {scanned, out, pieces, scanned, piece_segments});
    d.words[0] = static_cast<uint32_t>(l.tiles);
    d.words[4] = d.groups_x;
    d.words[5] = static_cast<uint32_t>(blocks);
    d.offset_words = {{1, 0}, {2, 1}, {3, 2}, {10, 4}};
    steps.push_back(std::move(d));
  }
  return steps;
}

}  // namespace gpuscan::core
