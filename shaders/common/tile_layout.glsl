// Where a tile's elements live: W invocations each own VECTORS_PER_LANE vectors of 4 elements, so a
// tile holds W * VECTORS_PER_LANE * 4 elements. Loads are subgroup-striped: in row k, lane l of
// subgroup s accesses vector (s*K + k)*SG + l of the tile, so a subgroup touches SG consecutive
// vectors at once (coalesced). Elements past n read as the identity and are never written.
#ifndef GPUSCAN_TILE_LAYOUT_GLSL
#define GPUSCAN_TILE_LAYOUT_GLSL

#include "backend.glsl"
#include "subgroup_basic.glsl"

SPEC_CONSTANT(3, uint, VECTORS_PER_LANE, 4u);
// src and dst element offsets are multiples of 4, so whole vectors can be accessed at once.
SPEC_CONSTANT(4, bool, VECTOR_ALIGNED, true);

// Vector v of this pass's src / dst (pass_io.glsl's accessors, four elements at once).
#if defined(ADDRESS_DEVICE)
// The host sets VECTOR_ALIGNED only where both addresses are multiples of a vector's size.
layout(buffer_reference, std430, buffer_reference_align = BDA_VECTOR_ALIGN) readonly buffer SrcVectors { VEC4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = BDA_VECTOR_ALIGN) buffer DstVectors { VEC4 v[]; };
VEC4 src_vector_at(uint v) { return SrcVectors(bda_address(pc.src_address, v, BDA_VECTOR_ALIGN)).v[0]; }
void dst_vector_put(uint v, VEC4 value) { DstVectors(bda_address(pc.dst_address, v, BDA_VECTOR_ALIGN)).v[0] = value; }
#else
layout(binding = 0, std430) readonly buffer SrcVectors { VEC4 g_src4[]; };
layout(binding = 1, std430) buffer DstVectors { VEC4 g_dst4[]; };
VEC4 src_vector_at(uint v) { return g_src4[pc.src_offset / 4u + v]; }
void dst_vector_put(uint v, VEC4 value) { g_dst4[pc.dst_offset / 4u + v] = value; }
#endif

uint tile_elements() { return gl_WorkGroupSize.x * VECTORS_PER_LANE * 4u; }

// Index of this invocation's k-th vector inside the tile.
uint tile_vector(uint k) {
  return (SUBGROUP_ID * VECTORS_PER_LANE + k) * SUBGROUP_SIZE + SUBGROUP_LANE;
}

VEC4 load_vector(uint tile, uint k) {
  const uint v = tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + tile_vector(k);
  const uint e = v * 4u;
  if (VECTOR_ALIGNED && e + 3u < g_pass_n) return src_vector_at(v);
  return VEC4(load_src_or_identity(e), load_src_or_identity(e + 1u), load_src_or_identity(e + 2u),
              load_src_or_identity(e + 3u));
}

void store_vector(uint tile, uint k, VEC4 value) {
  const uint v = tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + tile_vector(k);
  const uint e = v * 4u;
  if (VECTOR_ALIGNED && e + 3u < g_pass_n) {
    dst_vector_put(v, value);
    return;
  }
  store_dst_guarded(e, value.x);
  store_dst_guarded(e + 1u, value.y);
  store_dst_guarded(e + 2u, value.z);
  store_dst_guarded(e + 3u, value.w);
}

#endif
