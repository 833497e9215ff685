// A compute program of either backend: a shader variant of the manifest (shaders/variants.cmake) and the
// values of its constants -- Vulkan specialization constants, OpenGL #defines GPUSCAN_SPEC_<id>
// (shaders/common/backend.glsl). One key type, so both backends give the constants the same meaning.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>

namespace gpuscan {

struct PipelineKey {
  std::string variant;            // name in shaders/variants.cmake
  uint32_t workgroup_size = 0;    // 0: local_size_x
  bool inclusive = false;         // 1
  bool use_aux = false;           // 2: WRITE_BLOCK_SUMS / READ_OFFSETS
  uint32_t vectors_per_lane = 4;  // 3
  bool vector_aligned = true;     // 4
  uint32_t spin_limit = 1024;     // 5
  uint32_t predicate = 0;         // 6: stream compaction's predicate kind (shaders/common/compact.glsl)
  bool withhold_first_tile = false;  // 7: WITHHOLD_FIRST_TILE (TestHooks::withhold_first_tile)
  uint32_t heads = 0;             // 8: HEADS, where segmented scans find segment starts (core::HeadSource)
  bool late_fallback = false;    // 9: LATE_FALLBACK (TestHooks::late_fallback)
  bool in_place = false;          // 10: IN_PLACE, the single-pass scan's output is its input
  uint32_t tiles_per_workgroup = 1;  // 11: TILES_PER_WORKGROUP, tiles a single-pass workgroup takes in turn
  uint32_t prefix_stride = 1;     // 12: PREFIX_STRIDE (TestHooks::prefix_stride)
  uint32_t op = 0;                // 13: OP, the operator of a scan or reduction kernel (shaders/common/ops.glsl)
  uint32_t outputs = 1;           // 14: OUTPUTS, what a compaction writes (shaders/common/compact.glsl)
  uint32_t sort_rows = 0;         // 15: SORT_ROWS, the radix sort's counter rows (shaders/common/radix_rank.glsl)
  uint32_t sort_shared_words = 0; // 16: SORT_SHARED_WORDS, its shared array
  auto operator<=>(const PipelineKey&) const = default;

  static constexpr uint32_t constant_count = 17;
  // The value of constant id i at index i.
  std::array<uint32_t, constant_count> constants() const {
    return {workgroup_size, inclusive, use_aux, vectors_per_lane, vector_aligned, spin_limit, predicate,
            withhold_first_tile, heads, late_fallback, in_place, tiles_per_workgroup, prefix_stride, op,
            outputs, sort_rows, sort_shared_words};
  }
};

}  // namespace gpuscan
