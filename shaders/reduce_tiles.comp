#version 450
// Reduce-then-scan, pass 1: the total of every tile goes to g_aux[aux_offset + tile]. Reads N elements
// and writes N / tile, so the whole scan moves 3N instead of the multi-pass scan's 4N.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);  // unused here; tile.glsl's store needs it declared

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#define TILE_ROW_HALVES_IF_WIDE  // 8-byte elements in two 16-byte halves (common/tile_layout.glsl)
#include "common/tile.glsl"

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
  const T total = tile_scan(tile, false);
  if (gl_LocalInvocationID.x == 0u) g_aux[pc.aux_offset + tile] = total;
}
