// Segmented reductions by offsets (include/gpuscan/vulkan/segmented_reduce.hpp, gl.hpp): the host
// logic both backends share -- the checks of counts, segments and host offsets, where the per-tile arrays
// sit in temp, and the programs (core/program.hpp), so that src/vulkan/segment_offsets.cpp and
// src/gl/segment_offsets.cpp only check buffers and execute.
//
// The steps (docs/segmented_reduce.md): an empty input writes the identities (seg_offsets_gather).
// Otherwise seg_offsets_bounds (each tile's range of offsets), barrier, seg_offsets_tiles (each tile
// read once; every segment that starts and ends there written), and where there is more than one tile:
// barrier, the inclusive segmented scan of the tiles' totals (the backend's segmented scan program, its
// buffers placed in temp), barrier, seg_offsets_finish (the segments that cross tiles).
//
// Temp (OffsetsReduceLayout): the tiles' total values, pieces and scanned totals (T each, from byte 0);
// from `words` the tiles' heads, the pieces' segments and the tiles' ranges of offsets (u32); from
// `scan_temp` the segmented scan's own scratch. Every array at a multiple of 64 bytes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/plan.hpp"
#include "core/program.hpp"
#include "core/scan_shape.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/reduce.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

// The segmented scan of the tiles' totals: the reduction's type and operator, inclusive, its W and K.
ScanConfig offsets_scan_config(const ReduceConfig& config);

// Errc::too_large unless `count` values fit one binding of `fit` elements and the shaders' u32 indices.
void check_offsets_count(uint64_t count, uint64_t fit, DataType type);
// Errc::too_large past 2^32 - 2 segments (u32 offsets).
void check_segment_count(uint64_t segments);
// The convenience calls' check of host offsets: S + 1 >= 1 of them, non-decreasing, the last within n
// (Errc::invalid_argument).
void check_host_offsets(std::span<const uint32_t> offsets, uint64_t n);
// The convenience calls' checks of their host data: `value_bytes` a whole number of `type` values, the
// offsets as check_host_offsets says, the segments as check_segment_count.
struct OffsetsInput {
  uint64_t count = 0;         // values
  uint64_t segments = 0;      // S
  uint64_t result_bytes = 0;  // S results of the type
};
OffsetsInput check_offsets_input(uint64_t value_bytes, std::span<const uint32_t> offsets, DataType type);

struct OffsetsReduceLayout {
  TileShape shape;          // of the tile pass
  uint64_t tiles = 0;
  uint64_t words = 0;       // byte offsets in temp; the T arrays start at 0
  uint64_t scan_temp = 0;
  uint64_t scan_temp_size = 0;       // the segmented scan's scratch
  uint64_t scan_temp_alignment = 4;  // and its alignment
  uint64_t bytes = 0;       // all of temp
  uint64_t alignment = 4;   // of temp's start: the scan's, at least 4
};

// The layout for `count` values of `type` in tiles of `shape` (K 0 means 1: see the .cpp); `scan_temp`
// gives the segmented scan's temp requirements (size, alignment) for a number of tiles.
struct ScanTemp {
  uint64_t size = 0;
  uint64_t alignment = 4;
};
OffsetsReduceLayout offsets_reduce_layout(uint64_t count, DataType type, TileShape shape,
                                          const std::function<ScanTemp(uint64_t tiles)>& scan_temp);

// The record calls' checks of the caller's buffers, in the same order and with the same messages on
// both backends (`check_view(what, view, count, unit, need)` and `overlaps(a, a_bytes, b, b_bytes)` are
// the backend's own): the input (when count > 0), the S + 1 offsets, the S results, their overlaps, and
// where `l.bytes` > 0 temp, its overlaps and its alignment (Errc::misaligned).
template <class View, class CheckView, class Overlaps>
void check_offsets_reduce_buffers(const View& input, const View& offsets, const View& output, const View& temp,
                                  uint64_t count, uint64_t segments, uint32_t esize, const OffsetsReduceLayout& l,
                                  CheckView check_view, Overlaps overlaps);

enum class OffsetsKernel : uint8_t { bounds, tiles, finish, gather, heads };
const char* offsets_kernel_name(OffsetsKernel kernel);  // "seg_offsets_bounds", ...

// The buffers of a program by offsets, in the order the executors are given them.
enum OffsetsBuffer : uint8_t { offsets_input, offsets_offsets, offsets_output, offsets_temp };
inline constexpr std::string_view offsets_buffer_names[] = {"input", "offsets", "output", "temp"};

// What a program by offsets needs of the backend: the segmented scan program (core::SegBuffer's buffers;
// core::lower_segmented_plan) of `count` values with u32 head flags, and the suffix of its builds of
// the seg_offsets_* kernels (OpenGL: ".no_subgroups").
struct OffsetsBackend {
  std::function<Program(uint64_t count)> segmented_scan;
  std::string kernel_suffix;
  PlanLimits limits;
};

// The reduction of `count` values into `segments` (> 0) results laid out as `l`, `op` over `type`.
Program offsets_reduce_program(const OffsetsReduceLayout& l, uint64_t count, uint64_t segments, DataType type, Op op,
                               const OffsetsBackend& backend);

// A segmented scan by offsets of `count` (> 0) values: seg_offsets_heads writes a head flag per value
// into temp from byte `flags` (u32, W invocations per workgroup), barrier, the segmented scan of the
// input by those flags into the output, its scratch in temp from byte `scan_temp`.
Program offsets_scan_program(uint64_t count, uint64_t segments, uint64_t flags, uint64_t scan_temp,
                             uint32_t workgroup_size, const OffsetsBackend& backend);

template <class View, class CheckView, class Overlaps>
void check_offsets_reduce_buffers(const View& input, const View& offsets, const View& output, const View& temp,
                                  uint64_t count, uint64_t segments, uint32_t esize, const OffsetsReduceLayout& l,
                                  CheckView check_view, Overlaps overlaps) {
  const char* need = "the segmented reduction needs";
  if (count > 0) check_view("input", input, count, esize, need);
  check_view("offsets", offsets, segments + 1, 4, "the segmented reduction needs S + 1 offsets:");
  check_view("output", output, segments, esize, need);
  const uint64_t in_bytes = count * esize, off_bytes = (segments + 1) * 4, out_bytes = segments * esize;
  if (count > 0 && overlaps(input, in_bytes, output, out_bytes))
    throw Error(Errc::invalid_argument, "input and output ranges overlap: the reduction reads the values after "
                                        "it has written results; use disjoint ranges");
  if (overlaps(offsets, off_bytes, output, out_bytes))
    throw Error(Errc::invalid_argument, "offsets and output ranges overlap: the last pass reads offsets while "
                                        "it writes results; use disjoint ranges");
  if (l.bytes == 0) return;
  check_view("temp", temp, l.bytes / 4, 4, need);
  if (overlaps(temp, l.bytes, input, in_bytes) || overlaps(temp, l.bytes, offsets, off_bytes) ||
      overlaps(temp, l.bytes, output, out_bytes))
    throw Error(Errc::invalid_argument, "temp storage overlaps the input, offsets or output range");
  if (temp.offset % l.alignment != 0)
    throw Error(Errc::misaligned, "temp starts at byte " + std::to_string(temp.offset) + ", not a multiple of " +
                                      std::to_string(l.alignment) + " (segmented_reduce_temp_requirements' alignment)");
}

}  // namespace gpuscan::core
