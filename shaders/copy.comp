#version 450
// The copy roofline for the benchmark: every tile of src to dst through the tile kernels' layout and
// bounds checks (common/tile_layout.glsl), without the scan. A scan cannot beat this; a good one
// matches it.
//
// With COPY_PAIRS (8-byte types only), the same tiles move 16 bytes a lane instead of the layout's 32:
// a tile is 2K rows of W pairs of elements, each row consecutive across the workgroup. It measures what
// a layout of 16-byte vectors could reach for 8-byte scans.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/pass_io.glsl"
#include "common/tile_layout.glsl"

#if defined(COPY_PAIRS)
#if defined(TYPE_U64)
#define PAIR u64vec2
#else
#error "COPY_PAIRS: 8-byte element types only"
#endif
layout(binding = 0, std430) readonly buffer SrcPairs { PAIR g_src2[]; };
layout(binding = 1, std430) buffer DstPairs { PAIR g_dst2[]; };

PAIR load_pair(uint p) {
  if (VECTOR_ALIGNED && 2u * p + 1u < g_pass_n) return g_src2[pc.src_offset / 2u + p];
  return PAIR(load_src_or_identity(2u * p), load_src_or_identity(2u * p + 1u));
}

void store_pair(uint p, PAIR value) {
  if (VECTOR_ALIGNED && 2u * p + 1u < g_pass_n) {
    g_dst2[pc.dst_offset / 2u + p] = value;
    return;
  }
  store_dst_guarded(2u * p, value.x);
  store_dst_guarded(2u * p + 1u, value.y);
}
#endif

void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;
#if defined(COPY_PAIRS)
  const uint first = tile * gl_WorkGroupSize.x * VECTORS_PER_LANE * 2u + gl_LocalInvocationID.x;
  VEC4 rows[VECTORS_PER_LANE];
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k)
    rows[k] = VEC4(load_pair(first + 2u * k * gl_WorkGroupSize.x), load_pair(first + (2u * k + 1u) * gl_WorkGroupSize.x));
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    store_pair(first + 2u * k * gl_WorkGroupSize.x, rows[k].xy);
    store_pair(first + (2u * k + 1u) * gl_WorkGroupSize.x, rows[k].zw);
  }
#else
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) store_vector(tile, k, load_vector(tile, k));
#endif
}
