// Stream compaction (compact_count.comp, compact_scatter.comp): the push constants, the five storage
// buffers, the built-in predicates and a shared-memory scan of one u32 per invocation.
//
// The predicate is specialization constant 6 (PREDICATE: 0 = the flags buffer, 1.. = PredicateKind + 1
// in include/gpuscan/compact.hpp), its constants the push-constant words a and b (bit patterns in T),
// so one pipeline per predicate kind serves every constant.
#ifndef GPUSCAN_COMPACT_GLSL
#define GPUSCAN_COMPACT_GLSL

#include "backend.glsl"

SPEC_CONSTANT(3, uint, VECTORS_PER_LANE, 4u);
SPEC_CONSTANT(6, uint, PREDICATE, 0u);

// The first six words are PassParams (common/pass_io.glsl); compaction adds four.
PARAMS_BLOCK uniform CompactParams {
  uint n;             // elements of the input
  uint src_offset;    // element offsets inside bindings 0..4
  uint dst_offset;
  uint aux_offset;    // tile counts (compact_count writes them; compact_scatter reads their exclusive scan)
  uint groups_x;      // grid width, to linearize a 2-D grid
  uint blocks;        // tiles; workgroups past it exit at once
  uint flags_offset;
  uint count_offset;
  uint a;             // predicate constants, bit patterns of T
  uint b;
} pc;

layout(binding = 0, std430) readonly buffer SrcBuffer { T g_src[]; };
layout(binding = 1, std430) writeonly buffer DstBuffer { T g_dst[]; };
layout(binding = 2, std430) buffer AuxBuffer { uint g_aux[]; };
layout(binding = 3, std430) readonly buffer FlagsBuffer { uint g_flags[]; };
layout(binding = 4, std430) writeonly buffer CountBuffer { uint g_count[]; };

const uint PRED_FLAGGED = 0u;
const uint PRED_NONZERO = 1u;
const uint PRED_EQUAL = 2u;
const uint PRED_NOT_EQUAL = 3u;
const uint PRED_LESS = 4u;
const uint PRED_LESS_EQUAL = 5u;
const uint PRED_GREATER = 6u;
const uint PRED_GREATER_EQUAL = 7u;
const uint PRED_BITS_SET = 8u;
const uint PRED_IN_RANGE = 9u;

// Elements per invocation and per tile.
const uint ITEMS = VECTORS_PER_LANE * 4u;
uint tile_elements() { return gl_WorkGroupSize.x * ITEMS; }

uint linear_block_index() { return gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x; }

// Whether element i (< n) is kept; `value` receives it when the predicate reads it (always, except
// for the flags, where it is loaded only if `need_value`).
bool compact_keep(uint i, bool need_value, out T value) {
  if (PREDICATE == PRED_FLAGGED) {
    const bool kept = g_flags[pc.flags_offset + i] != 0u;
    value = (kept && need_value) ? g_src[pc.src_offset + i] : T(0);
    return kept;
  }
  const T v = g_src[pc.src_offset + i];
  value = v;
  const T a = from_bits(pc.a);
  switch (PREDICATE) {
    case PRED_NONZERO: return v != T(0);
    case PRED_EQUAL: return v == a;
    case PRED_NOT_EQUAL: return v != a;
    case PRED_LESS: return v < a;
    case PRED_LESS_EQUAL: return v <= a;
    case PRED_GREATER: return v > a;
    case PRED_GREATER_EQUAL: return v >= a;
    case PRED_BITS_SET: return (to_bits(v) & pc.a) != 0u;
    case PRED_IN_RANGE: return a <= v && v <= from_bits(pc.b);
  }
  return false;
}

// Exclusive sum of one u32 per invocation in local invocation order (Hillis-Steele in shared memory,
// 2·log2(W) barriers); `total` receives the workgroup's sum. Call from uniform control flow.
shared uint sh_compact_scan[gl_WorkGroupSize.x];

uint workgroup_exclusive_sum(uint v, out uint total) {
  const uint lid = gl_LocalInvocationID.x;
  barrier();
  sh_compact_scan[lid] = v;
  for (uint d = 1u; d < gl_WorkGroupSize.x; d <<= 1) {
    barrier();
    const uint t = lid >= d ? sh_compact_scan[lid - d] : 0u;
    barrier();
    sh_compact_scan[lid] += t;
  }
  barrier();
  total = sh_compact_scan[gl_WorkGroupSize.x - 1u];
  const uint inclusive = sh_compact_scan[lid];
  barrier();
  return inclusive - v;
}

#endif
