#version 450
// The single-pass chained scan: one dispatch reads every element once and writes it once (2N). A
// workgroup takes the next tile from an atomic counter, scans it, publishes its total, looks back over
// its predecessors for everything before it (common/lookback.glsl), publishes its inclusive prefix
// and writes the tile, for several tiles in turn (common/tile_loop.glsl). g_aux is the look-back state:
// zero when the dispatch starts (cleared by the plan's fill, or left zero by the previous single-pass
// scan), and zero again when it ends.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
// Output is input: a tile's PREFIX must be visible before its stores (common/lookback.glsl, "In place").
// Only then: the extra fence and barrier cost about 8 % at 2^24-2^28 on the H200 (bench/RESULTS.md).
SPEC_CONSTANT(10, bool, IN_PLACE, false);

#include "common/ops.glsl"
#define SCAN_SUBGROUP_SHUFFLES  // measured faster in this kernel only (common/scan_element.glsl)
#include "common/pass_io.glsl"
#define TILE_ROW_HALVES_IF_WIDE  // 8-byte elements in two 16-byte halves (common/tile_layout.glsl)
#include "common/tile.glsl"
// Tile 0's inclusive prefix starts with the carry-in, whoever computes it (owner or fallback).
#define LOOKBACK_TILE0_PREFIX(total) with_initial(total)
// What lies before tile 0: the carry-in, if any (tile_loop.glsl; lookback_ordered.glsl uses it too).
#define LOOP_TILE0_BEFORE pass_initial()
// LOOKBACK_ORDERED (the manifest's ".ordered" float variants): the look-back combines tile totals in
// a fixed order, so that every run gives the same bits (common/lookback_ordered.glsl).
#include "common/lookback.glsl"

// The held tile's scanned values (tile_loop.glsl), while t_values / t_prefix take the next tile's.
VEC4 held_values[VECTORS_PER_LANE];
ROW_PREFIX held_prefix[VECTORS_PER_LANE];

T loop_scan(uint tile) { return tile_scan(tile, true); }

void loop_hold() {
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    held_values[k] = t_values[k];
    held_prefix[k] = t_prefix[k];
  }
}

void loop_store_held(uint tile, T before, T total) {
  // In place, the tile's input is gone once its output is stored: its PREFIX must be visible first,
  // so that a successor's fallback can tell (common/lookback.glsl, "In place").
  if (IN_PLACE) {
    memoryBarrierBuffer();
    barrier();
  }
  tile_store_kept(tile, before, held_values, held_prefix);
}

#include "common/tile_loop.glsl"

void main() {
  pass_begin();
  tile_loop(g_pass_blocks);
  lookback_finish(gl_NumWorkGroups.x * gl_NumWorkGroups.y, g_pass_blocks);
}
