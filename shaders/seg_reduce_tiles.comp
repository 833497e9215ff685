#version 450
// Segmented scan, pass 1: every tile's (head, value) total -- whether a segment starts in the tile, and
// the combination of its elements from the last segment start on -- goes to g_tile_heads[dst_offset +
// tile] and g_aux[aux_offset + tile]: the next level's heads and values (common/segmented.glsl).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/segmented.glsl"

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
  const Pair total = tile_scan(tile, false);
  if (gl_LocalInvocationID.x == 0u) {
    g_aux[pc.aux_offset + tile] = total.value;
    g_tile_heads[pc.dst_offset + tile] = total.head;
  }
}
