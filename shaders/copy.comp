#version 450
// The copy roofline for the benchmark: every tile of src to dst through the tile kernels' layout and
// bounds checks (common/tile_layout.glsl), without the scan. A scan cannot beat this; a good one
// matches it.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#include "common/tile_layout.glsl"

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) store_vector(tile, k, load_vector(tile, k));
}
