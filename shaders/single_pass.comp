#version 450
// The single-pass chained scan: one dispatch reads every element once and writes it once (2N). A
// workgroup takes the next tile from an atomic counter, scans it, publishes its total, looks back over
// its predecessors for everything before it (common/lookback.glsl), publishes its inclusive prefix
// and writes the tile. g_aux is the look-back state: zero when the dispatch starts (cleared by the
// plan's fill, or left zero by the previous single-pass scan), and zero again when it ends.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
// Output is input: a tile's PREFIX must be visible before its stores (common/lookback.glsl, "In place").
// Only then: the extra fence and barrier cost about 8 % at 2^24-2^28 on the H200 (bench/RESULTS.md).
SPEC_CONSTANT(10, bool, IN_PLACE, false);

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#include "common/tile.glsl"
// Tile 0's inclusive prefix starts with the carry-in, whoever computes it (owner or fallback).
#define LOOKBACK_TILE0_PREFIX(total) with_initial(total)
#include "common/lookback.glsl"

shared uint sh_tile;

void main() {
  pass_begin();
  if (gl_LocalInvocationID.x == 0u) sh_tile = acquire_tile_index();
  barrier();
  const uint tile = sh_tile;
  if (tile < g_pass_blocks) {  // uniform: every invocation read the same index; the grid may be rounded up
    const T aggregate = tile_scan(tile, true);
    if (gl_LocalInvocationID.x == 0u && tile != 0u) publish_state(tile, FLAG_AGGREGATE, aggregate);
    if (gl_LocalInvocationID.x == 0u && tile == 0u && !WITHHOLD_FIRST_TILE)
      publish_state(tile, FLAG_PREFIX, LOOKBACK_TILE0_PREFIX(aggregate));

    const T before = tile == 0u ? pass_initial() : lookback_exclusive_prefix(tile);
    if (gl_LocalInvocationID.x == 0u && tile != 0u) publish_state(tile, FLAG_PREFIX, op_combine(before, aggregate));
    // In place, the tile's input is gone once its output is stored: its PREFIX must be visible first,
    // so that a successor's fallback can tell (common/lookback.glsl, "In place").
    if (IN_PLACE) {
      memoryBarrierBuffer();
      barrier();
    }
    tile_store(tile, before);
  }
  lookback_finish(gl_NumWorkGroups.x * gl_NumWorkGroups.y, g_pass_blocks);
}
