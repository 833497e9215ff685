// Stream compaction (compact_count.comp, compact_scatter.comp, compact_single_pass.comp): the push
// constants, the six storage buffers, the built-in predicates, the count of a tile's kept elements and
// a shared-memory scan of one u32 per invocation.
//
// Elements move as their bit patterns, EBITS: uint for the 4-byte element types, uvec2 (low word, high
// word) for the 8-byte ones; compaction only copies them, and ops.glsl's T is the u32 count type here
// (the single-pass plan's look-back combines kept counts). Only the predicate sees the element type E
// (ELEMENT_U32, ELEMENT_I32, ELEMENT_F32, ELEMENT_U64, ELEMENT_I64 or ELEMENT_F64). Four consecutive
// elements travel together as an EVEC4 (a uvec4, or for 8-byte elements the four low words and the four
// high words: two 16-byte loads), read and written through evec4_at / evec4_set.
//
// The predicate is specialization constant 6 (PREDICATE: 0 = the flags buffer, 1.. = PredicateKind + 1
// in include/gpuscan/compact.hpp; PRED_RUN_START reads a second element, the one before, and the
// internal PRED_RUN_EDGE the ones before and after), its constants the push-constant words a and b (bit
// patterns in E; the 8-byte types' high words in a_hi and b_hi), so one pipeline per predicate kind
// serves every constant.
#ifndef GPUSCAN_COMPACT_GLSL
#define GPUSCAN_COMPACT_GLSL

#include "backend.glsl"

#if defined(ELEMENT_U32) || defined(ELEMENT_I32) || defined(ELEMENT_F32)
#define EBITS uint
#define EVEC4 uvec4
EVEC4 evec4_zero() { return uvec4(0u); }
EBITS evec4_at(EVEC4 v, uint c) { return v[c]; }
void evec4_set(inout EVEC4 v, uint c, EBITS bits) { v[c] = bits; }
bool bits_any(EBITS bits) { return bits != 0u; }
#else
#define EBITS uvec2
struct EVec4 {
  uvec4 lo;  // the low words of the four elements
  uvec4 hi;  // their high words
};
#define EVEC4 EVec4
EVEC4 evec4_zero() { return EVec4(uvec4(0u), uvec4(0u)); }
EBITS evec4_at(EVEC4 v, uint c) { return uvec2(v.lo[c], v.hi[c]); }
void evec4_set(inout EVEC4 v, uint c, EBITS bits) {
  v.lo[c] = bits.x;
  v.hi[c] = bits.y;
}
bool bits_any(EBITS bits) { return (bits.x | bits.y) != 0u; }
#endif

#if defined(ELEMENT_U32)
#define E uint
E element(EBITS bits) { return bits; }
#elif defined(ELEMENT_I32)
#define E int
E element(EBITS bits) { return int(bits); }
#elif defined(ELEMENT_F32)
#define E float
E element(EBITS bits) { return uintBitsToFloat(bits); }
#elif defined(ELEMENT_U64) || defined(ELEMENT_I64)
// Only the predicate's comparisons need 64-bit integers (shaderInt64 on Vulkan, GL_ARB_gpu_shader_int64 on
// OpenGL); the elements move as uvec2, so no subgroup operation ever sees one.
#include "int64_types.glsl"
#if defined(ELEMENT_U64)
#define E uint64_t
#else
#define E int64_t
#endif
E element(EBITS bits) { return E(packUint2x32(bits)); }
#elif defined(ELEMENT_F64)
#define E double  // shaderFloat64
E element(EBITS bits) { return packDouble2x32(bits); }
#else
#error "define one of ELEMENT_U32, ELEMENT_I32, ELEMENT_F32, ELEMENT_U64, ELEMENT_I64, ELEMENT_F64"
#endif

SPEC_CONSTANT(3, uint, VECTORS_PER_LANE, 4u);
// The src and flags element offsets are multiples of 4, so whole 16-byte vectors can be loaded
// (compact_keep4).
SPEC_CONSTANT(4, bool, VECTOR_ALIGNED, true);
SPEC_CONSTANT(6, uint, PREDICATE, 0u);
// What the flags binding holds where PREDICATE is PRED_FLAGGED: HEADS_FLAGS, u32 flags (kept where
// non-zero); HEADS_KEYS32 / HEADS_KEYS64, u32 or u64 keys (kept where the key differs from the one
// before: unique_by_key), as the segmented scans' HEADS.
const uint HEADS_FLAGS = 0u;
const uint HEADS_KEYS32 = 1u;
const uint HEADS_KEYS64 = 2u;
SPEC_CONSTANT(8, uint, HEADS, 0u);

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
  uint a;             // predicate constants, bit patterns of E
  uint b;
  uint dynamic;       // 0: n, blocks and groups_x above hold; else 1 + the index in g_aux of this
                      // dispatch's (n, blocks, groups_x), written on the GPU (a count in GPU memory,
                      // core/indirect.hpp: the aux binding reaches the words, which follow the plan's temp)
  // Windowed compaction (core::Dispatch::output_window; all 0 otherwise): tile t of this dispatch is tile
  // tile_base + t of the whole input, whose all_tiles tile offsets g_aux holds from aux_offset; binding 1
  // holds output elements [dst_base, dst_base + dst_count) from dst_offset, and store_out skips the rest.
  uint tile_base;
  uint all_tiles;     // 0: g_blocks
  uint dst_base;
  uint dst_count;     // 0: binding 1 holds the whole output from dst_offset
  uint a_hi;          // the 8-byte types' high words of a and b (words 15 and 16)
  uint b_hi;
  uint index_offset;  // element offset inside binding 5 (OUT_INDICES)
} pc;

layout(binding = 0, std430) readonly buffer SrcBuffer { EBITS g_src[]; };
layout(binding = 1, std430) writeonly buffer DstBuffer { EBITS g_dst[]; };
layout(binding = 2, std430) buffer AuxBuffer { uint g_aux[]; };
layout(binding = 3, std430) readonly buffer FlagsBuffer { uint g_flags[]; };
layout(binding = 0, std430) readonly buffer SrcVectors { uvec4 g_src4[]; };
layout(binding = 3, std430) readonly buffer FlagsVectors { uvec4 g_flags4[]; };
layout(binding = 4, std430) writeonly buffer CountBuffer { uint g_count[]; };
layout(binding = 5, std430) writeonly buffer IndexBuffer { uint g_index[]; };

// What a kept element writes (specialization constant 14): its bits to binding 1 (OUT_VALUES), its index
// in the whole input to binding 5 as a u32 (OUT_INDICES), or both. Run-length encoding writes both (the
// first of each run and where it starts), its non-trivial runs only the indices.
const uint OUT_VALUES = 1u;
const uint OUT_INDICES = 2u;
SPEC_CONSTANT(14, uint, OUTPUTS, 1u);

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
const uint PRED_RUN_START = 10u;  // unequal (in E) to the element before; element 0 always
// Internal to run-length encoding (no PredicateKind): the first or the last element of a run of two or
// more equal elements, so a non-trivial run's two ends are kept one after the other.
const uint PRED_RUN_EDGE = 11u;

// Elements per invocation and per tile.
const uint ITEMS = VECTORS_PER_LANE * 4u;
uint tile_elements() { return gl_WorkGroupSize.x * ITEMS; }

// This dispatch's elements, tiles and grid width: the push constants', or with pc.dynamic those an
// earlier dispatch computed from a count in GPU memory. compact_begin() sets them; every kernel calls it
// first.
uint g_n;
uint g_blocks;
uint g_groups_x;

void compact_begin() {
  if (pc.dynamic == 0u) {
    g_n = pc.n;
    g_blocks = pc.blocks;
    g_groups_x = pc.groups_x;
  } else {
    g_n = g_aux[pc.dynamic - 1u];
    g_blocks = g_aux[pc.dynamic];
    g_groups_x = g_aux[pc.dynamic + 1u];
  }
}

uint linear_block_index() { return gl_WorkGroupID.y * g_groups_x + gl_WorkGroupID.x; }

// Writes output element d (an index into the whole output) where binding 1 holds it.
void store_out(uint d, EBITS bits) {
  if (pc.dst_count == 0u) g_dst[pc.dst_offset + d] = bits;
  else if (d >= pc.dst_base && d - pc.dst_base < pc.dst_count) g_dst[pc.dst_offset + (d - pc.dst_base)] = bits;
}

// Writes what a kept element writes (OUTPUTS): output element d is the element of input index i
// (whole-input, windows included), whose bits are `bits`.
void store_kept(uint d, uint i, EBITS bits) {
  if ((OUTPUTS & OUT_VALUES) != 0u) store_out(d, bits);
  if ((OUTPUTS & OUT_INDICES) != 0u) g_index[pc.index_offset + d] = i;
}

// An input index carried where bits travel (the single-pass stage holds indices with OUT_INDICES).
#if defined(ELEMENT_U32) || defined(ELEMENT_I32) || defined(ELEMENT_F32)
EBITS index_as_bits(uint i) { return i; }
uint bits_as_index(EBITS bits) { return bits; }
#else
EBITS index_as_bits(uint i) { return uvec2(i, 0u); }
uint bits_as_index(EBITS bits) { return bits.x; }
#endif

#if defined(ELEMENT_U32) || defined(ELEMENT_I32) || defined(ELEMENT_F32)
EBITS constant_a() { return pc.a; }
EBITS constant_b() { return pc.b; }
#else
EBITS constant_a() { return uvec2(pc.a, pc.a_hi); }
EBITS constant_b() { return uvec2(pc.b, pc.b_hi); }
#endif

// Whether the built-in predicate (PREDICATE > 0, not PRED_RUN_START) keeps an element with these bits.
bool predicate_holds(EBITS bits) {
  const E v = element(bits);
  const E a = element(constant_a());
  switch (PREDICATE) {
    case PRED_NONZERO: return v != E(0);
    case PRED_EQUAL: return v == a;
    case PRED_NOT_EQUAL: return v != a;
    case PRED_LESS: return v < a;
    case PRED_LESS_EQUAL: return v <= a;
    case PRED_GREATER: return v > a;
    case PRED_GREATER_EQUAL: return v >= a;
    case PRED_BITS_SET: return bits_any(bits & constant_a());
    case PRED_IN_RANGE: return a <= v && v <= element(constant_b());
  }
  return false;
}

// Whether the flags binding keeps element i (HEADS): its flag is non-zero, or its key differs from the
// one before (element 0 always). Keys index the binding in their own units (pc.flags_offset too).
bool flag_at(uint i) {
  const uint j = pc.flags_offset + i;
  if (HEADS == HEADS_FLAGS) return g_flags[j] != 0u;
  if (i == 0u) return true;
  if (HEADS == HEADS_KEYS32) return g_flags[j] != g_flags[j - 1u];
  return g_flags[2u * j] != g_flags[2u * j - 2u] || g_flags[2u * j + 1u] != g_flags[2u * j - 1u];
}

// Whether element i (< g_n) is kept; `value` receives its bits when the predicate reads it (always,
// except for the flags, where it is loaded only if `need_value`).
bool compact_keep(uint i, bool need_value, out EBITS value) {
  if (PREDICATE == PRED_FLAGGED) {
    const bool kept = flag_at(i);
    value = (kept && need_value) ? g_src[pc.src_offset + i] : EBITS(0u);
    return kept;
  }
  value = g_src[pc.src_offset + i];
  if (PREDICATE == PRED_RUN_START) return i == 0u || element(g_src[pc.src_offset + i - 1u]) != element(value);
  if (PREDICATE == PRED_RUN_EDGE) {
    const bool starts = i == 0u || element(g_src[pc.src_offset + i - 1u]) != element(value);
    const bool ends = i + 1u >= g_n || element(g_src[pc.src_offset + i + 1u]) != element(value);
    return starts != ends;
  }
  return predicate_holds(value);
}

// Elements e .. e+3 (e a multiple of 4; VECTOR_ALIGNED) of the input and of the flags, as 16-byte loads:
// one for the flags and the 4-byte elements, two for the 8-byte ones.
#if defined(ELEMENT_U32) || defined(ELEMENT_I32) || defined(ELEMENT_F32)
EVEC4 src_vector(uint e) { return g_src4[(pc.src_offset + e) / 4u]; }
#else
EVEC4 src_vector(uint e) {
  const uint q = (pc.src_offset + e) / 2u;  // two elements per uvec4
  const uvec4 v0 = g_src4[q], v1 = g_src4[q + 1u];
  return EVec4(uvec4(v0.x, v0.z, v1.x, v1.z), uvec4(v0.y, v0.w, v1.y, v1.w));
}
#endif
// The flags of elements e .. e+3: one 16-byte load of flags; for keys, whether each starts a run (1 or 0).
uvec4 flags_vector(uint e) {
  if (HEADS != HEADS_FLAGS) return uvec4(flag_at(e), flag_at(e + 1u), flag_at(e + 2u), flag_at(e + 3u));
  return g_flags4[(pc.flags_offset + e) / 4u];
}

// Whether the built-in predicate (PREDICATE > 0) keeps each of elements e .. e+3, whose bits are
// `values`. PRED_RUN_START compares each with the one before: the first with element e-1, loaded here
// (a word its neighbour just loaded, so mostly a cache hit).
bvec4 compact_keep_values4(uint e, EVEC4 values) {
  if (PREDICATE == PRED_RUN_START) {
    const E v0 = element(evec4_at(values, 0u)), v1 = element(evec4_at(values, 1u)),
            v2 = element(evec4_at(values, 2u)), v3 = element(evec4_at(values, 3u));
    return bvec4(e == 0u || element(g_src[pc.src_offset + e - 1u]) != v0, v0 != v1, v1 != v2, v2 != v3);
  }
  if (PREDICATE == PRED_RUN_EDGE) {  // the next element too: e + 4 (< n, else the last ends a run)
    const E v0 = element(evec4_at(values, 0u)), v1 = element(evec4_at(values, 1u)),
            v2 = element(evec4_at(values, 2u)), v3 = element(evec4_at(values, 3u));
    const bvec4 starts = bvec4(e == 0u || element(g_src[pc.src_offset + e - 1u]) != v0, v0 != v1, v1 != v2, v2 != v3);
    const bvec4 ends = bvec4(v0 != v1, v1 != v2, v2 != v3, e + 4u >= g_n || element(g_src[pc.src_offset + e + 4u]) != v3);
    return notEqual(starts, ends);
  }
  return bvec4(predicate_holds(evec4_at(values, 0u)), predicate_holds(evec4_at(values, 1u)),
               predicate_holds(evec4_at(values, 2u)), predicate_holds(evec4_at(values, 3u)));
}

// Which values compact_keep4 loads for the flags (the predicates read them all anyway).
const uint LOAD_NONE = 0u;  // none: counting only
const uint LOAD_KEPT = 1u;  // where one of the four is kept: selection
const uint LOAD_ALL = 2u;   // all: partition

// Elements e .. e+3 (e a multiple of 4): whether each is kept (false past n), and their bits in
// `values` where loaded. Vector loads of values (src_vector) and flags where VECTOR_ALIGNED and all
// four are below n; element by element otherwise.
bvec4 compact_keep4(uint e, uint load, out EVEC4 values) {
  values = evec4_zero();
  if (VECTOR_ALIGNED && e + 3u < g_n) {
    if (PREDICATE == PRED_FLAGGED) {
      const bvec4 kept = notEqual(flags_vector(e), uvec4(0u));
      if (load == LOAD_ALL || (load == LOAD_KEPT && any(kept))) values = src_vector(e);
      return kept;
    }
    values = src_vector(e);
    return compact_keep_values4(e, values);
  }
  bvec4 kept = bvec4(false);
  for (uint c = 0u; c < 4u; ++c) {
    if (e + c >= g_n) break;
    EBITS v;
    kept[c] = compact_keep(e + c, load != LOAD_NONE, v);
    if (load == LOAD_ALL && PREDICATE == PRED_FLAGGED) v = g_src[pc.src_offset + e + c];
    evec4_set(values, c, v);
  }
  return kept;
}

#include "common/workgroup_sum.glsl"  // workgroup_exclusive_sum

#endif
