// Run-length encoding's host logic for both backends (src/vulkan/run_length.cpp, src/gl/run_length.cpp):
// the temp layout, the checks of the caller's ranges, the predicates of the compaction that finds the
// runs, and the lengths pass.
//
// Temp: [the compaction's temp, from byte 0 (its look-back state must start there)][count u32 indices,
// at a multiple of 64 bytes][one word: the non-trivial runs' edge count]. Encode writes the indices to
// the caller's offsets where given, so that part of temp then goes unused.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/indirect.hpp"
#include "core/program.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

struct RunLengthLayout {
  uint64_t indices = 0;  // byte offsets in temp
  uint64_t word = 0;
  uint64_t bytes = 0;    // all of temp
};

// Errc::too_large past 2^32 - 1 elements (indices and lengths are u32).
void check_run_length_count(uint64_t count);
// The layout for `count` elements after a compaction temp of `compact_bytes`.
RunLengthLayout run_length_layout(uint64_t count, uint64_t compact_bytes);

// The most runs `count` elements hold: count (encode), count / 2 (non-trivial runs, `edges`).
inline uint64_t run_length_room(uint64_t count, bool edges) { return edges ? count / 2 : count; }

// The ranges the call touches (bytes 0: not used); Errc::invalid_argument naming the two when an output
// overlaps the input, another output or temp.
struct RunLengthRanges {
  ByteRange input, values, lengths, offsets, runs, temp;
};
void check_run_length_overlaps(const RunLengthRanges& r);

// The compaction's predicate constants (shaders/common/compact.glsl): PRED_RUN_START
// (PredicateKind::run_start + 1) and the internal PRED_RUN_EDGE, the first and the last element of every
// run of two or more.
inline constexpr uint32_t predicate_run_start = 10;
inline constexpr uint32_t predicate_run_edge = 11;

// The lengths pass (shaders/run_lengths.comp) after the compaction, as a program over the call's u32
// arrays in RunBuffer's order (`indices`: where the compaction wrote the indices, the caller's offsets or
// temp at RunLengthLayout::indices): a barrier after the compaction, then one dispatch of at most 1024
// workgroups of `workgroup_size` (the backend's default W, core::tile_shape). Empty where an encoding of
// no elements wrote its 0 runs in the compaction.
enum RunBuffer : uint8_t { run_indices, run_temp, run_count, run_lengths, run_offsets, run_values };
inline constexpr std::string_view run_buffer_names[] = {"indices", "temp", "count_out", "lengths", "offsets", "values"};
Program run_length_program(uint64_t count, bool edges, const RunLengthLayout& layout, uint32_t workgroup_size);

// The checks of the caller's views for `a.count` elements (`temp_bytes` of temp), with the backend's
// check_view (`check(name, view, count, esize, need)`) and byte ranges (`range(view, bytes)`): room, and
// no output overlapping the input, another output or temp. Args is either API's RunLengthArgs.
template <class Args, class Check, class Range>
void check_run_length_views(const Args& a, uint64_t temp_bytes, bool edges, Check check, Range range) {
  const uint64_t n = a.count;
  const uint32_t esize = element_size(a.config.type);
  const char* need = "run-length encoding needs";
  const char* worst = "run-length encoding needs room for the worst case:";
  check("runs", a.count_out, 1, 4, need);
  if (n == 0) return;
  const uint64_t room = run_length_room(n, edges);
  const bool offsets = edges || static_cast<bool>(a.offsets.buffer);
  check("input", a.input, n, esize, need);
  if (!edges)
    check("values", a.values, n, esize, "run-length encoding needs room for the worst case (every element a run):");
  if (room > 0) {
    check("lengths", a.lengths, room, 4, worst);
    if (offsets) check("offsets", a.offsets, room, 4, worst);
  }
  check("temp", a.temp, temp_bytes / 4, 4, need);
  check_run_length_overlaps({range(a.input, n * esize), range(a.values, edges ? 0 : n * esize),
                             range(a.lengths, room * 4), range(a.offsets, offsets ? room * 4 : 0),
                             range(a.count_out, 4), range(a.temp, temp_bytes)});
}

}  // namespace gpuscan::core
