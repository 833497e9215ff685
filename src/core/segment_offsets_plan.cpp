#include "core/segment_offsets_plan.hpp"

#include <algorithm>
#include <string>

#include "core/variant_names.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

constexpr uint64_t array_alignment = 64;

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

Bind temp_range(uint64_t byte_offset, uint64_t count, uint32_t unit) {
  return {offsets_temp, byte_offset / unit, count, unit};
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

const char* offsets_kernel_name(OffsetsKernel kernel) {
  switch (kernel) {
    case OffsetsKernel::bounds: return "seg_offsets_bounds";
    case OffsetsKernel::tiles: return "seg_offsets_tiles";
    case OffsetsKernel::finish: return "seg_offsets_finish";
    case OffsetsKernel::gather: return "seg_offsets_gather";
    case OffsetsKernel::heads: return "seg_offsets_heads";
  }
  return "?";
}

namespace {

// Parameter words: pass_io.glsl's PassParams (n, offsets of bindings 0..2, groups_x, blocks, ...), then
// each kernel's own from word 10 (segment_offsets.glsl).
constexpr size_t offsets_param_words = 14;

struct OffsetsPlanner {
  DataType type;
  Op op;
  const OffsetsBackend& backend;
  uint32_t workgroup_size;

  // A dispatch of `kernel` over `blocks` workgroups, its words zero but n, groups_x and blocks.
  cmd::Dispatch dispatch(OffsetsKernel kernel, uint64_t n, uint64_t blocks, std::vector<Bind> bindings,
                         bool typed = true) const {
    cmd::Dispatch d;
    d.key.variant = offsets_kernel_name(kernel);
    if (typed) {
      d.key.variant += "." + std::string(to_string(type));
      d.key.op = op_constant(op);
    }
    d.key.variant += backend.kernel_suffix;
    d.key.workgroup_size = workgroup_size;
    d.bindings = std::move(bindings);
    grid_for(blocks, backend.limits, d.groups_x, d.groups_y);
    d.params.assign(offsets_param_words, Param::word(0));
    d.params[0] = Param::word(static_cast<uint32_t>(n));
    d.params[4] = Param::word(d.groups_x);
    d.params[5] = Param::word(static_cast<uint32_t>(blocks));
    return d;
  }
  uint64_t per_item(uint64_t items) const { return std::max<uint64_t>(1, (items + workgroup_size - 1) / workgroup_size); }
};

// The segmented scan's program with its buffers placed in temp (or, for input and output, where `at` says).
void append_scan(Program& program, const OffsetsBackend& backend, uint64_t count, const Place (&at)[4]) {
  const Place places[] = {at[0], at[1], at[2], at[3], {offsets_temp, 0}, {offsets_temp, 0}};  // SegBuffer's order
  append_placed(program, backend.segmented_scan(count), places);
}

}  // namespace

Program offsets_reduce_program(const OffsetsReduceLayout& l, uint64_t count, uint64_t segments, DataType type, Op op,
                               const OffsetsBackend& backend) {
  const uint32_t esize = element_size(type);
  const OffsetsPlanner plan{type, op, backend, l.shape.workgroup_size};
  const Bind offsets{offsets_offsets, 0, segments + 1, 4};
  const Bind out{offsets_output, 0, segments, esize};
  Program program;
  program.buffer_names.assign(std::begin(offsets_buffer_names), std::end(offsets_buffer_names));
  if (count == 0) {  // every segment is empty: identities only (binding 0 is bound but not read)
    const uint64_t blocks = plan.per_item(segments);
    cmd::Dispatch d = plan.dispatch(OffsetsKernel::gather, 0, blocks, {out, out, out, out, offsets});
    d.params[1] = Param::offset(0);
    d.params[2] = Param::offset(1);
    d.params[10] = Param::word(static_cast<uint32_t>(segments));
    d.params[11] = Param::offset(4);
    program.dispatch(std::move(d));
    return program;
  }
  const uint32_t span = l.shape.workgroup_size * l.shape.vectors_per_lane * 4;
  const uint64_t words = l.words / 4;  // in u32
  {  // each tile's range of offsets
    const Bind bounds = temp_range(l.words + 8 * l.tiles, 2 * l.tiles, 4);
    cmd::Dispatch d =
        plan.dispatch(OffsetsKernel::bounds, l.tiles, plan.per_item(l.tiles), {bounds, bounds, bounds, bounds, offsets}, false);
    d.params[1] = Param::word(span);
    d.params[2] = Param::word(static_cast<uint32_t>(segments));
    d.params[3] = Param::offset(4);
    d.params[4] = Param::offset(1);
    d.params[5] = Param::word(d.groups_x);
    program.dispatch(std::move(d));
  }
  program.barrier();
  {  // the tiles
    const Bind in{offsets_input, 0, count, esize};
    const Bind tile_values = temp_range(0, 2 * l.tiles, esize);
    const Bind tile_words{offsets_temp, words, 4 * l.tiles, 4};
    cmd::Dispatch d = plan.dispatch(OffsetsKernel::tiles, count, l.tiles, {in, out, tile_values, in, offsets, tile_words});
    d.key.vectors_per_lane = l.shape.vectors_per_lane;
    d.params[1] = Param::offset(0);
    d.params[2] = Param::offset(1);
    d.params[3] = Param::offset(2);
    d.params[10] = Param::offset(4);
    d.params[12] = Param::word(static_cast<uint32_t>(segments));
    d.params[13] = Param::offset(5);
    // 16-byte vectors of values where they start on a vector boundary.
    d.vector_aligned_if = {{1, 1, 4}};
    program.dispatch(std::move(d));
  }
  if (l.tiles == 1) return program;  // every segment that ends in the only tile started there
  program.barrier();
  // The inclusive segmented scan of the tiles' totals: values, heads (u32 flags), output and scratch in temp.
  append_scan(program, backend, l.tiles,
              {{offsets_temp, 0}, {offsets_temp, l.words}, {offsets_temp, 2 * l.tiles * esize}, {offsets_temp, l.scan_temp}});
  program.barrier();
  {  // the pieces of segments that cross tiles
    const Bind scanned = temp_range(2 * l.tiles * esize, l.tiles, esize);
    const Bind pieces = temp_range(l.tiles * esize, l.tiles, esize);
    const Bind piece_segments{offsets_temp, words + l.tiles, l.tiles, 4};
    const uint64_t blocks = plan.per_item(l.tiles);
    cmd::Dispatch d = plan.dispatch(OffsetsKernel::finish, l.tiles, blocks, {scanned, out, pieces, scanned, piece_segments});
    d.params[1] = Param::offset(0);
    d.params[2] = Param::offset(1);
    d.params[3] = Param::offset(2);
    d.params[10] = Param::offset(4);
    program.dispatch(std::move(d));
  }
  return program;
}

Program offsets_scan_program(uint64_t count, uint64_t segments, uint64_t flags, uint64_t scan_temp,
                             uint32_t workgroup_size, const OffsetsBackend& backend) {
  const OffsetsPlanner plan{DataType::u32, Op::add, backend, workgroup_size};
  const Bind heads{offsets_temp, flags / 4, count, 4};
  // Bindings 0 src (unread), 1 dst, 2 and 3 unread, 4 the offsets.
  cmd::Dispatch d = plan.dispatch(OffsetsKernel::heads, count, plan.per_item(count),
                                  {heads, heads, heads, heads, Bind{offsets_offsets, 0, segments + 1, 4}}, false);
  d.key.op = op_constant(Op::add);
  d.params[1] = Param::offset(0);
  d.params[2] = Param::offset(1);
  d.params[10] = Param::word(static_cast<uint32_t>(segments));
  d.params[11] = Param::offset(4);
  Program program;
  program.buffer_names.assign(std::begin(offsets_buffer_names), std::end(offsets_buffer_names));
  program.dispatch(std::move(d));
  program.barrier();
  append_scan(program, backend, count,
              {{offsets_input, 0}, {offsets_temp, flags}, {offsets_output, 0}, {offsets_temp, scan_temp}});
  return program;
}

}  // namespace gpuscan::core
