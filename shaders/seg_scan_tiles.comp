#version 450
// Segmented scan, pass 3 (and the whole scan when one tile holds everything): scans every tile of src
// into dst, restarting at segment heads (common/segmented.glsl). With READ_OFFSETS the tile starts from
// g_aux[aux_offset + tile - 1], the INCLUSIVE segmented scan of the tile totals before it (its head
// does not matter: a tile's own heads decide where the incoming value stops counting). Tile 0 starts
// from the carry-in, if any: a windowed scan's running value (pass_io.glsl's pass_initial).
// Exclusive output gives the first element of every segment the identity.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
SPEC_CONSTANT(2, bool, READ_OFFSETS, false);

#include "common/ops.glsl"
#include "common/segmented.glsl"

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
  PairVector rows[VECTORS_PER_LANE];
  tile_load(tile, rows);
  tile_scan_rows(rows, true);
  const Pair carry =
      Pair(0u, tile == 0u ? pass_initial() : READ_OFFSETS ? g_aux[pc.aux_offset + tile - 1u] : op_identity());
  const T identity = op_identity();
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const Pair before = pair_combine(carry, t_prefix[k]);  // everything in front of this vector
    const PairVector v = t_values[k];                      // the vector scanned inside itself
    VEC4 out_v;
    if (INCLUSIVE) {
      out_v = VEC4(value_after(before, v.heads.x, v.values.x), value_after(before, v.heads.y, v.values.y),
                   value_after(before, v.heads.z, v.values.z), value_after(before, v.heads.w, v.values.w));
    } else {
      const uvec4 h = rows[k].heads;  // the elements' own heads, not the scanned ones
      out_v = VEC4(h.x != 0u ? identity : before.value,
                   h.y != 0u ? identity : value_after(before, v.heads.x, v.values.x),
                   h.z != 0u ? identity : value_after(before, v.heads.y, v.values.y),
                   h.w != 0u ? identity : value_after(before, v.heads.z, v.values.z));
    }
    store_vector(tile, k, out_v);
  }
}
