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

// The vector-at-a-time access of a row: one VEC4 per lane.
VEC4 load_vector_direct(uint tile, uint k) {
  const uint v = tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + tile_vector(k);
  const uint e = v * 4u;
  if (VECTOR_ALIGNED && e + 3u < g_pass_n) return src_vector_at(v);
  return VEC4(load_src_or_identity(e), load_src_or_identity(e + 1u), load_src_or_identity(e + 2u),
              load_src_or_identity(e + 3u));
}

void store_vector_direct(uint tile, uint k, VEC4 value) {
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

#if defined(VEC2) && !defined(GPUSCAN_NO_SUBGROUPS)
// 8-byte types: a lane's vector is 32 bytes, which NVIDIA's hardware accesses as two 16-byte halves 32
// bytes apart, so each access instruction touches twice the sectors it uses. Here a subgroup moves each
// row in 16-byte pairs instead -- lane l the row's pairs l and SG + l, consecutive across the lanes --
// and hands every lane its vector (pairs 2l and 2l + 1) through shared memory, half a row at a time. The
// scan sees the same layout as above. (H100: bench/RESULTS.md, "8-byte scans".)
#define TILE_PAIRS_STAGED
shared VEC2 sh_row_pairs[gl_WorkGroupSize.x];  // half a row of each subgroup

#if defined(ADDRESS_DEVICE)
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer SrcPairs { VEC2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer DstPairs { VEC2 v[]; };
VEC2 src_pair_at(uint p) { return SrcPairs(bda_address(pc.src_address, p, 16u)).v[0]; }
void dst_pair_put(uint p, VEC2 value) { DstPairs(bda_address(pc.dst_address, p, 16u)).v[0] = value; }
#else
layout(binding = 0, std430) readonly buffer SrcPairs { VEC2 g_src2[]; };
layout(binding = 1, std430) buffer DstPairs { VEC2 g_dst2[]; };
VEC2 src_pair_at(uint p) { return g_src2[pc.src_offset / 2u + p]; }
void dst_pair_put(uint p, VEC2 value) { g_dst2[pc.dst_offset / 2u + p] = value; }
#endif

VEC2 load_pair(uint p) {
  const uint e = p * 2u;
  if (VECTOR_ALIGNED && e + 1u < g_pass_n) return src_pair_at(p);
  return VEC2(load_src_or_identity(e), load_src_or_identity(e + 1u));
}

void store_pair(uint p, VEC2 value) {
  const uint e = p * 2u;
  if (VECTOR_ALIGNED && e + 1u < g_pass_n) {
    dst_pair_put(p, value);
    return;
  }
  store_dst_guarded(e, value.x);
  store_dst_guarded(e + 1u, value.y);
}

// This lane's first pair of row k (the row's first pair plus the lane).
uint row_pair(uint tile, uint k) {
  return (tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + (SUBGROUP_ID * VECTORS_PER_LANE + k) * SUBGROUP_SIZE) * 2u +
         SUBGROUP_LANE;
}

// A row as loaded: this lane's pairs in its first half (a) and its second (b).
struct RowPairs {
  VEC2 a, b;
};

RowPairs fetch_row(uint tile, uint k) {
  const uint p = row_pair(tile, k);
  return RowPairs(load_pair(p), load_pair(p + SUBGROUP_SIZE));
}

// Half-row exchanges through this subgroup's slots: lanes whose vector lies in the half (2l < SG for the
// first) take pairs 2l, 2l + 1 of it. Every exchange starts with a barrier, so that no lane overwrites
// slots another lane still reads. Call from subgroup-uniform control flow.
void slots_put(uint slot, VEC2 value) {
  subgroupBarrier();  // the previous exchange's reads are done
  sh_row_pairs[SUBGROUP_ID * SUBGROUP_SIZE + slot] = value;
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}
VEC2 slots_get(uint slot) { return sh_row_pairs[SUBGROUP_ID * SUBGROUP_SIZE + slot]; }

VEC4 arrange_row(RowPairs r) {
  // One lane: its vector is the row.
  if (SUBGROUP_SIZE == 1u) return VEC4(r.a, r.b);
  const uint mine = 2u * SUBGROUP_LANE;
  const bool first = mine < SUBGROUP_SIZE;
  const uint at = first ? mine : mine - SUBGROUP_SIZE;
  VEC2 lo, hi;
  slots_put(SUBGROUP_LANE, r.a);
  if (first) {
    lo = slots_get(at);
    hi = slots_get(at + 1u);
  }
  slots_put(SUBGROUP_LANE, r.b);
  if (!first) {
    lo = slots_get(at);
    hi = slots_get(at + 1u);
  }
  return VEC4(lo, hi);
}

// The inverse of arrange_row and fetch_row: each lane writes its vector into its half's slots, and the
// row leaves in consecutive pairs.
void store_row(uint tile, uint k, VEC4 value) {
  const uint p = row_pair(tile, k);
  if (SUBGROUP_SIZE == 1u) {
    store_pair(p, value.xy);
    store_pair(p + 1u, value.zw);
    return;
  }
  const uint mine = 2u * SUBGROUP_LANE;
  const bool first = mine < SUBGROUP_SIZE;
  const uint at = first ? mine : mine - SUBGROUP_SIZE;
  const uint base = SUBGROUP_ID * SUBGROUP_SIZE;
  for (uint half_index = 0u; half_index < 2u; ++half_index) {
    subgroupBarrier();  // the previous exchange's reads are done
    if (first == (half_index == 0u)) {
      sh_row_pairs[base + at] = value.xy;
      sh_row_pairs[base + at + 1u] = value.zw;
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    store_pair(p + half_index * SUBGROUP_SIZE, sh_row_pairs[base + SUBGROUP_LANE]);
  }
}

VEC4 load_vector(uint tile, uint k) { return arrange_row(fetch_row(tile, k)); }
void store_vector(uint tile, uint k, VEC4 value) { store_row(tile, k, value); }

// All of a lane's rows, every row's loads issued before the first exchange (so they are in flight together).
void load_vectors(uint tile, out VEC4 rows[VECTORS_PER_LANE]) {
  RowPairs fetched[VECTORS_PER_LANE];
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) fetched[k] = fetch_row(tile, k);
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) rows[k] = arrange_row(fetched[k]);
}
#else
VEC4 load_vector(uint tile, uint k) { return load_vector_direct(tile, k); }
void store_vector(uint tile, uint k, VEC4 value) { store_vector_direct(tile, k, value); }
void load_vectors(uint tile, out VEC4 rows[VECTORS_PER_LANE]) {
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) rows[k] = load_vector(tile, k);
}
#endif

#endif
