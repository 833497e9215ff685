#version 450
// Reduce-then-scan, pass 3 (and the whole scan when one tile holds everything): scans every tile of src
// into dst, starting from the tile's offset g_aux[aux_offset + tile] when READ_OFFSETS is set.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
SPEC_CONSTANT(2, bool, READ_OFFSETS, false);

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#define TILE_ROW_HALVES_IF_WIDE  // 8-byte elements in two 16-byte halves (common/tile_layout.glsl)
#include "common/tile.glsl"

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
  tile_scan(tile, true);
  tile_store(tile, READ_OFFSETS ? g_aux[pc.aux_offset + tile] : pass_initial());  // the root has no offsets
}
