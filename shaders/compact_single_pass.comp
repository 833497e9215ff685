#version 450
// Stream compaction in one pass (the single-pass plan of select_if / select_flagged): every element is
// read once and every kept element written once. A workgroup takes the next tile from an atomic
// counter, ranks the tile's kept elements with subgroup ballots (common/ballot.glsl), publishes the
// tile's kept count, and finds the number kept in all tiles before it with the decoupled look-back of
// the single-pass scan (common/lookback.glsl) over u32 counts -- ops.glsl's T is uint with OP_ADD here,
// the count monoid. Then it scatters its kept elements; the last tile writes the number kept to
// g_count. g_aux (binding 2) is the look-back state: zero when the dispatch starts (cleared by the
// plan's fill, or left zero by the previous single-pass compaction), and zero again when it ends.
// COMPACT_BALLOT only: the look-back needs subgroup ballots anyway.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require  // the look-back's SUBGROUP_REDUCE

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/compact.glsl"
#include "common/ballot.glsl"
#include "common/compact_tile.glsl"

// The look-back's fallback asks for a stuck predecessor's total "from its input": here its number of
// kept elements, counted again (exact, so any workgroup finds the same value as the owner).
T tile_total(uint tile) { return count_kept(tile); }

#include "common/lookback.glsl"

shared uint sh_tile;

void main() {
  compact_begin();
  if (gl_LocalInvocationID.x == 0u) sh_tile = acquire_tile_index();
  barrier();
  const uint tile = sh_tile;
  if (tile < g_blocks) {  // uniform: every invocation read the same index; the grid may be rounded up
    uint total;
    const uint in_tile = ballot_rank_kept(tile, total);
    if (gl_LocalInvocationID.x == 0u && !(WITHHOLD_FIRST_TILE && tile == 0u))
      publish_state(tile, tile == 0u ? FLAG_PREFIX : FLAG_AGGREGATE, total);
    const uint before = lookback_exclusive_prefix(tile);
    if (gl_LocalInvocationID.x == 0u && tile != 0u) publish_state(tile, FLAG_PREFIX, before + total);
    ballot_store_kept(before + in_tile);
    if (tile == g_blocks - 1u && gl_LocalInvocationID.x == 0u) g_count[pc.count_offset] = before + total;
  }
  lookback_finish(gl_NumWorkGroups.x * gl_NumWorkGroups.y, g_blocks);
}
