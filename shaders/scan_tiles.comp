#version 450
// Reduce-then-scan, pass 3 (and the whole scan when one tile holds everything): scans every tile of src
// into dst, starting from the tile's offset g_aux[aux_offset + tile] when READ_OFFSETS is set.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool INCLUSIVE = false;
layout(constant_id = 2) const bool READ_OFFSETS = false;

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#include "common/tile.glsl"

void main() {
  const uint tile = linear_block_index();
  if (tile >= pc.blocks) return;
  tile_scan(tile, true);
  tile_store(tile, READ_OFFSETS ? g_aux[pc.aux_offset + tile] : pass_initial());  // the root has no offsets
}
