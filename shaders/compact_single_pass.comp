#version 450
// Stream compaction in one pass (the single-pass plan of select_if / select_flagged): every element is
// read once and every kept element written once. Workgroups take tiles from an atomic counter, several
// in turn (common/tile_loop.glsl, as the single-pass scan): a tile's kept elements are ranked with
// subgroup ballots and staged in shared memory in output order (common/compact_stage.glsl), its kept
// count is published, and the number kept in all tiles before it comes from the decoupled look-back
// (common/lookback.glsl) over u32 counts -- ops.glsl's T is uint with OP_ADD here, the count monoid --
// which the workgroup runs for a held tile only after it has loaded and ranked its next one. The last
// tile writes the number kept to g_count. g_aux (binding 2) is the look-back state: zero when the
// dispatch starts (cleared by the plan's fill, or left zero by the previous single-pass compaction),
// and zero again when it ends. COMPACT_BALLOT only: the look-back needs subgroup ballots anyway.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require  // the look-back's SUBGROUP_REDUCE

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/compact.glsl"
#include "common/ballot.glsl"
#include "common/subgroup_totals.glsl"
#include "common/compact_stage.glsl"

// The look-back's fallback asks for a stuck predecessor's total "from its input": here its number of
// kept elements, counted again (exact, so any workgroup finds the same value as the owner).
T tile_total(uint tile) { return stage_count(tile); }

#include "common/lookback.glsl"

T loop_scan(uint tile) { return stage_rank(tile); }

// The held tile waits in the stage, so the next tile's ranking can take the registers.
void loop_hold() {
  barrier();  // every invocation has stored the previous held tile from the stage
  stage_gather();
}

void loop_store_held(uint tile, T before, T total) {
  barrier();  // the stage is complete (loop_hold's gather), also where no barrier came since
  stage_store(before, total);
  if (tile == g_blocks - 1u && gl_LocalInvocationID.x == 0u) g_count[pc.count_offset] = before + total;
}

#include "common/tile_loop.glsl"

void main() {
  compact_begin();
  tile_loop(g_blocks);
  lookback_finish(gl_NumWorkGroups.x * gl_NumWorkGroups.y, g_blocks);
}
