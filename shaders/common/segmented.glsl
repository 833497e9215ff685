// Segmented scans (seg_reduce_tiles.comp, seg_scan_tiles.comp): the tile scan of tile.glsl run over
// (head, value) pairs instead of values. With the operator
//   (ha, a) (+) (hb, b) = (ha | hb, hb ? b : a (+) b)
// -- associative whenever (+) is, with identity (0, identity) -- a segmented scan of the values is the
// value half of an ordinary scan of the pairs, so tiles, their totals and the recursion over tile
// totals work as in reduce-then-scan. A pair's head says whether a segment starts in what it covers;
// its value is the combination of its elements from the last segment start on (all of them if none).
//
// Heads come from binding 4 at element offset pc.heads_offset (words this file adds to pass_io.glsl's
// PassParams, after all of its own), as HEADS (specialization constant 8)
// says: HEADS_FLAGS, one u32 per element (non-zero starts a segment; also the tile heads the levels
// above the data keep in temp), or the keys, u32 or u64 (a segment starts where the key differs from
// the previous element's key). Element 0 always starts a segment, except after a window (heads_before). The subgroup scan of pairs is a
// Hillis-Steele scan with subgroupShuffleUp: no subgroup arithmetic exists for pairs (with
// GPUSCAN_NO_SUBGROUPS, OpenGL without subgroups, it is trivial: subgroups of one invocation). Its combining
// order, like the rest of the tile's, depends only on the tile shape and the subgroup size, so float
// results are reproducible run to run.
//
// Include after ops.glsl and instead of pass_io.glsl, which it includes with its extra word; it includes
// tile.glsl itself, after defining the element.
#ifndef GPUSCAN_SEGMENTED_GLSL
#define GPUSCAN_SEGMENTED_GLSL

#if defined(GPUSCAN_PASS_IO_GLSL)
#error "include segmented.glsl instead of pass_io.glsl: it adds heads_offset to the parameters"
#endif
// heads_before: 1 where the key before element 0 (at heads_offset - 1) belongs to the array -- a window
// after the first of a scan longer than one binding (core/segmented_plan.hpp) -- so that element 0
// starts a segment only where its key differs from it.
// A kernel may define PASS_PARAMS_EXTRA itself, starting with these two words, to add words of its own.
#if !defined(PASS_PARAMS_EXTRA)
#define PASS_PARAMS_EXTRA uint heads_offset; uint heads_before;
#endif
#include "pass_io.glsl"

#include "tile_layout.glsl"
#if !defined(GPUSCAN_NO_SUBGROUPS)
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif

const uint HEADS_FLAGS = 0u;
const uint HEADS_KEYS32 = 1u;
const uint HEADS_KEYS64 = 2u;
SPEC_CONSTANT(8, uint, HEADS, 0u);

layout(binding = 4, std430) readonly buffer HeadWords { uint g_heads[]; };
// seg_reduce_tiles writes each tile's head to the binding its dst would have (it writes no values).
layout(binding = 1, std430) writeonly buffer TileHeads { uint g_tile_heads[]; };

struct Pair {
  uint head;  // 1: a segment starts in the range this pair covers; 0: none does
  T value;    // the combination of the range's elements from the last segment start on
};
// Four consecutive elements as pairs (one vector of the tile layout).
struct PairVector {
  uvec4 heads;
  VEC4 values;
};

Pair pair_identity() { return Pair(0u, op_identity()); }
Pair pair_combine(Pair a, Pair b) { return Pair(a.head | b.head, b.head != 0u ? b.value : op_combine(a.value, b.value)); }

// The value of `before` followed by an element (or range) whose pair is (head, value).
T value_after(Pair before, uint head, T value) { return head != 0u ? value : op_combine(before.value, value); }

#if defined(GPUSCAN_NO_SUBGROUPS)
// A subgroup of one invocation (subgroup_basic.glsl): nothing before it, itself the total.
void pair_scan_subgroup(Pair x, out Pair before, out Pair total) {
  before = pair_identity();
  total = x;
}
#else
Pair pair_shuffle_up(Pair x, uint delta) {
  return Pair(subgroupShuffleUp(x.head, delta), subgroupShuffleUp(x.value, delta));
}

void pair_scan_subgroup(Pair x, out Pair before, out Pair total) {
  Pair inclusive = x;
  for (uint d = 1u; d < gl_SubgroupSize; d <<= 1) {
    const Pair lower = pair_shuffle_up(inclusive, d);
    if (gl_SubgroupInvocationID >= d) inclusive = pair_combine(lower, inclusive);
  }
  before = pair_shuffle_up(inclusive, 1u);
  if (gl_SubgroupInvocationID == 0u) before = pair_identity();
  // A workgroup smaller than the subgroup fills only its first W lanes.
  const uint last = min(gl_SubgroupSize, gl_WorkGroupSize.x) - 1u;
  total = Pair(subgroupShuffle(inclusive.head, last), subgroupShuffle(inclusive.value, last));
}
#endif

PairVector pair_vector_inclusive(PairVector v) {
  v.values.y = value_after(Pair(v.heads.x, v.values.x), v.heads.y, v.values.y);
  v.heads.y |= v.heads.x;
  v.values.z = value_after(Pair(v.heads.y, v.values.y), v.heads.z, v.values.z);
  v.heads.z |= v.heads.y;
  v.values.w = value_after(Pair(v.heads.z, v.values.z), v.heads.w, v.values.w);
  v.heads.w |= v.heads.z;
  return v;
}

Pair pair_vector_last(PairVector v) { return Pair(v.heads.w, v.values.w); }

// Whether element i of this pass's array starts a segment (0 past the end). With HEADS_FROM_OFFSETS
// the kernel defines offsets_head_at(i) (seg_offsets_tiles.comp: segment starts given by CSR offsets).
uint head_at(uint i) {
  if (i >= g_pass_n) return 0u;
#if defined(HEADS_FROM_OFFSETS)
  return offsets_head_at(i);
#endif
  const uint j = pc.heads_offset + i;
  if (HEADS == HEADS_FLAGS) return g_heads[j] != 0u ? 1u : 0u;
  if (i == 0u && pc.heads_before == 0u) return 1u;
  if (HEADS == HEADS_KEYS32) return g_heads[j] != g_heads[j - 1u] ? 1u : 0u;
  return g_heads[2u * j] != g_heads[2u * j - 2u] || g_heads[2u * j + 1u] != g_heads[2u * j - 1u] ? 1u : 0u;
}

PairVector pair_load_vector(uint tile, uint k) {
  const uint e = (tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + tile_vector(k)) * 4u;
  return PairVector(uvec4(head_at(e), head_at(e + 1u), head_at(e + 2u), head_at(e + 3u)), load_vector(tile, k));
}

#define SCAN_ELEMENT Pair
#define SCAN_VECTOR PairVector
#define scan_identity pair_identity
#define scan_combine pair_combine
#define scan_subgroup pair_scan_subgroup
#define scan_vector_inclusive pair_vector_inclusive
#define scan_vector_last pair_vector_last
#define scan_load_vector pair_load_vector
#include "tile.glsl"

#endif
