// Where a tile's elements live: W invocations each own VECTORS_PER_LANE vectors of 4 elements, so a
// tile holds W * VECTORS_PER_LANE * 4 elements. Loads are subgroup-striped: in row k, lane l of
// subgroup s accesses vector (s*K + k)*SG + l of the tile, so a subgroup touches SG consecutive
// vectors at once (coalesced). Elements past n read as the identity and are never written.
//
// Row halves (TILE_ROW_HALVES, 8-byte elements in the kernels that define TILE_ROW_HALVES_IF_WIDE): a
// lane's 32-byte vector would take two 16-byte accesses, each touching every other half of the row's
// sectors. Instead row k is two runs of SG pairs: lane l's .xy are pair l of the row and its .zw pair
// SG + l, so each access covers 16 * SG consecutive bytes. A row is then scanned as two half rows
// (tile.glsl). H100, 2^28, single-pass (bench/RESULTS.md, "8-byte rows in 16-byte halves"): u64 exclusive
// 1.979 -> 1.913 ms, f64 exclusive 2.111 -> 1.918, u64 inclusive 2.088 -> 2.156; the copy in the layout
// 1.493 -> 1.416, the 4-byte copy's speed.
#ifndef GPUSCAN_TILE_LAYOUT_GLSL
#define GPUSCAN_TILE_LAYOUT_GLSL

#include "backend.glsl"
#include "subgroup_basic.glsl"

SPEC_CONSTANT(3, uint, VECTORS_PER_LANE, 4u);
// src and dst element offsets are multiples of 4, so whole vectors can be accessed at once.
SPEC_CONSTANT(4, bool, VECTOR_ALIGNED, true);

// ELEMS-element arrays over this pass's src and dst: TYPE at(i) reads the i-th, put(i, value) writes it
// (pass_io.glsl's addresses or bindings 0 and 1; BYTES = sizeof(TYPE), the alignment the host vouches
// for where it sets VECTOR_ALIGNED).
#if defined(ADDRESS_DEVICE)
#define TILE_PASS_ARRAYS(TYPE, ELEMS, BYTES, SRC, DST, at, put)                                              \
  layout(buffer_reference, std430, buffer_reference_align = BYTES) readonly buffer SRC { TYPE v[]; };       \
  layout(buffer_reference, std430, buffer_reference_align = BYTES) buffer DST { TYPE v[]; };                \
  TYPE at(uint i) { return SRC(bda_address(pc.src_address, i, BYTES)).v[0]; }                              \
  void put(uint i, TYPE value) { DST(bda_address(pc.dst_address, i, BYTES)).v[0] = value; }
#else
#define TILE_PASS_ARRAYS(TYPE, ELEMS, BYTES, SRC, DST, at, put)                                              \
  layout(binding = 0, std430) readonly buffer SRC { TYPE SRC##_a[]; };                                       \
  layout(binding = 1, std430) buffer DST { TYPE DST##_a[]; };                                                \
  TYPE at(uint i) { return SRC##_a[pc.src_offset / ELEMS + i]; }                                            \
  void put(uint i, TYPE value) { DST##_a[pc.dst_offset / ELEMS + i] = value; }
#endif

// Vector v of this pass's src / dst (four elements at once).
TILE_PASS_ARRAYS(VEC4, 4u, BDA_VECTOR_ALIGN, SrcVectors, DstVectors, src_vector_at, dst_vector_put)

#if defined(TILE_ROW_HALVES_IF_WIDE) && (defined(TYPE_U64) || defined(TYPE_I64) || defined(TYPE_F64))
#define TILE_ROW_HALVES
// Pair p of this pass's src / dst (two 8-byte elements, 16 bytes).
TILE_PASS_ARRAYS(VEC2, 2u, 16, SrcPairs, DstPairs, src_pair_at, dst_pair_put)
#endif

uint tile_elements() { return gl_WorkGroupSize.x * VECTORS_PER_LANE * 4u; }

// Index of this invocation's k-th vector inside the tile.
uint tile_vector(uint k) {
  return (SUBGROUP_ID * VECTORS_PER_LANE + k) * SUBGROUP_SIZE + SUBGROUP_LANE;
}

#if defined(TILE_ROW_HALVES)
// The first element of half h (0: .xy, 1: .zw) of this invocation's k-th vector in the tile.
uint tile_half_element(uint tile, uint k, uint h) {
  const uint row = tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + (SUBGROUP_ID * VECTORS_PER_LANE + k) * SUBGROUP_SIZE;
  return 4u * row + 2u * (h * SUBGROUP_SIZE + SUBGROUP_LANE);
}

VEC4 load_vector(uint tile, uint k) {
  const uint a = tile_half_element(tile, k, 0u), b = tile_half_element(tile, k, 1u);
  if (VECTOR_ALIGNED && b + 1u < g_pass_n) return VEC4(src_pair_at(a / 2u), src_pair_at(b / 2u));
  return VEC4(load_src_or_identity(a), load_src_or_identity(a + 1u), load_src_or_identity(b),
              load_src_or_identity(b + 1u));
}

void store_vector(uint tile, uint k, VEC4 value) {
  const uint a = tile_half_element(tile, k, 0u), b = tile_half_element(tile, k, 1u);
  if (VECTOR_ALIGNED && b + 1u < g_pass_n) {
    dst_pair_put(a / 2u, value.xy);
    dst_pair_put(b / 2u, value.zw);
    return;
  }
  store_dst_guarded(a, value.x);
  store_dst_guarded(a + 1u, value.y);
  store_dst_guarded(b, value.z);
  store_dst_guarded(b + 1u, value.w);
}
#else
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

#endif
