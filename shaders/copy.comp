#version 450
// The copy roofline for the benchmark: every tile of src to dst through the tile kernels' layout and
// bounds checks (common/tile_layout.glsl, with the tile scans' row halves for 8-byte types), without the
// scan. A scan cannot beat this; a good one matches it.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#define TILE_ROW_HALVES_IF_WIDE  // 8-byte elements as the tile scans lay them out
#include "common/tile_layout.glsl"

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) store_vector(tile, k, load_vector(tile, k));
}
