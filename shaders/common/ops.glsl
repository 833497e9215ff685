// The element type T and the operator as a monoid: op_identity() and an associative op_combine(a, b)
// (left operand first, so non-commutative operators keep their order), plus the subgroup scans that
// implement the same operator. The type is a -D define from shaders/variants.cmake (one TYPE_*); the
// operator is specialization constant OP or an OP_* define, as below (include/gpuscan/types.hpp lists
// which operators each type has). Include common/backend.glsl first. TYPE_CUSTOM with OP_CUSTOM is a
// caller's operator (include/gpuscan/types.hpp, CustomOp), compiled at run time by src/vulkan/custom_op.cpp,
// which resolves "custom_op.glsl" to the caller's snippet: it defines T, identity() and combine(a, b).
// It has no VEC4, T_WORDS or subgroup operations, so only kernels without them take it (scan_local with
// WORKGROUP_BLELLOCH, uniform_add).
#ifndef GPUSCAN_OPS_GLSL
#define GPUSCAN_OPS_GLSL

// VEC4 is the type of four consecutive elements, loaded and stored as one access (16 bytes for the
// 32-bit types, 32 for the 64-bit ones). T_WORDS is the number of 32-bit words in one T;
// to_word(v, h) and from_words move a value in and out of them (the look-back's tile states, the
// compaction predicates' constants). T_MAX / T_MIN are the identities of min and max.
#if defined(TYPE_U32)
#define T uint
#define VEC4 uvec4
#define T_WORDS 1u
#define T_MAX 0xffffffffu
#define T_MIN 0u
uint to_word(T v, uint h) { return v; }
T from_words(uvec2 w) { return w.x; }
#elif defined(TYPE_I32)
#define T int
#define VEC4 ivec4
#define T_WORDS 1u
#define T_MAX 0x7fffffff
#define T_MIN (-0x7fffffff - 1)
uint to_word(T v, uint h) { return uint(v); }
T from_words(uvec2 w) { return int(w.x); }
#elif defined(TYPE_F32)
#define T float
#define VEC4 vec4
#define T_WORDS 1u
#define T_MAX uintBitsToFloat(0x7f800000u)  // +inf
#define T_MIN uintBitsToFloat(0xff800000u)  // -inf
uint to_word(T v, uint h) { return floatBitsToUint(v); }
T from_words(uvec2 w) { return uintBitsToFloat(w.x); }
#elif defined(TYPE_U64) || defined(TYPE_I64)
#include "int64_types.glsl"
// OpenGL has no subgroup arithmetic on 64-bit integers: its 64-bit variants are the subgroup-free ones
// (cmake/Shaders.cmake).
#if !defined(GPUSCAN_GL)
#extension GL_EXT_shader_subgroup_extended_types_int64 : require  // subgroup arithmetic on 64-bit integers
#endif
#define T_WORDS 2u
#if defined(TYPE_U64)
#define T uint64_t
#define VEC4 u64vec4
#define VEC2 u64vec2
#define T_MAX 0xffffffffffffffffUL
#define T_MIN 0UL
#else
#define T int64_t
#define VEC4 i64vec4
#define VEC2 i64vec2
#define T_MAX 0x7fffffffffffffffL
#define T_MIN (-0x7fffffffffffffffL - 1L)
#endif
uint to_word(T v, uint h) { return unpackUint2x32(uint64_t(v))[h]; }
T from_words(uvec2 w) { return T(packUint2x32(w)); }
#elif defined(TYPE_F64)
#define T double
#define VEC4 dvec4
#define VEC2 dvec2
#define T_WORDS 2u
#define T_MAX packDouble2x32(uvec2(0u, 0x7ff00000u))  // +inf
#define T_MIN packDouble2x32(uvec2(0u, 0xfff00000u))  // -inf
uint to_word(T v, uint h) { return unpackDouble2x32(v)[h]; }
T from_words(uvec2 w) { return packDouble2x32(w); }
#elif defined(TYPE_CUSTOM)
#include "custom_op.glsl"
#if !defined(T)
#error "a custom operator's GLSL must #define T, its element type (e.g. #define T vec2)"
#endif
// A custom operator takes no carry-in (the host refuses ScanArgs::initial_bits), so pass_io.glsl's
// pass_initial() never converts words into a T: this only lets it compile.
T from_words(uvec2 w) { return identity(); }
#else
#error "define one of TYPE_U32, TYPE_I32, TYPE_F32, TYPE_U64, TYPE_I64, TYPE_F64, TYPE_CUSTOM"
#endif

// Float min and max propagate NaN, as numpy's minimum/maximum do: a result with a NaN among its
// operands is the quiet NaN T_NAN (whatever the operands' payloads, so the operators stay commutative
// and results do not depend on the order of combining). GLSL's min/max and the subgroup min/max leave
// NaN operands undefined or ignore them, so the NaN test is explicit, on the bits: it survives a
// compiler that assumes no NaN in float arithmetic.
#if defined(TYPE_F32)
#define T_NAN uintBitsToFloat(0x7fc00000u)
bool op_is_nan(T v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
#elif defined(TYPE_F64)
#define T_NAN packDouble2x32(uvec2(0u, 0x7ff80000u))
bool op_is_nan(T v) {
  const uvec2 w = unpackDouble2x32(v);
  const uint high = w.y & 0x7fffffffu;
  return high > 0x7ff00000u || (high == 0x7ff00000u && w.x != 0u);
}
#endif
#if defined(TYPE_F32) || defined(TYPE_F64)
T nan_min(T a, T b) { return op_is_nan(a) || op_is_nan(b) ? T_NAN : min(a, b); }
T nan_max(T a, T b) { return op_is_nan(a) || op_is_nan(b) ? T_NAN : max(a, b); }
// A subgroup min/max result `r`, replaced by T_NAN where the lanes it covered held a NaN (`seen`: the
// subgroup Or of op_is_nan over the same lanes).
T nan_seen(T r, uint seen) { return seen != 0u ? T_NAN : r; }
#define GPUSCAN_NAN_AWARE(prefix, suffix, x) nan_seen(prefix##suffix(x), prefix##Or(uint(op_is_nan(x))))
#endif

#if !defined(TYPE_CUSTOM)
// A value held in one 32-bit word (the 32-bit types only: compaction's predicate constants).
uint to_bits(T v) { return to_word(v, 0u); }
T from_bits(uint b) { return from_words(uvec2(b, 0u)); }
#endif

// The operator. Most scan and reduction kernels take it as specialization constant 13, OP (values as
// include/gpuscan/types.hpp's Op: add 0, min 1, max 2, mul 3, and 4, or 5, xor 6), so one module serves
// every operator of its type; the driver folds the constant at pipeline creation. A kernel built for one
// operator names it with a define instead: the single-pass scans (with OP a constant, the H200 ran the
// u32 min and max scans 1.7x slower at 2^24 and 1.9x at 2^28; reduce-then-scan and compaction within 2 %),
// compaction's count monoid (OP_ADD) and a caller's operator (OP_CUSTOM). min(a, b) is GLSL's
// "b < a ? b : a", as in include/gpuscan/reference.hpp, but NaN-propagating on floats (nan_min above); integer
// + and * wrap.
#define OP_ID_ADD 0u
#define OP_ID_MIN 1u
#define OP_ID_MAX 2u
#define OP_ID_MUL 3u
#define OP_ID_AND 4u
#define OP_ID_OR 5u
#define OP_ID_XOR 6u
#if defined(OP_CUSTOM)  // the snippet's; no subgroup operation implements it
#define OP_IDENTITY identity()
#define OP_COMBINE(a, b) combine(a, b)
#elif defined(OP_ADD) || defined(OP_MIN) || defined(OP_MAX) || defined(OP_MUL) || defined(OP_AND) || defined(OP_OR) || defined(OP_XOR)
// One operator: its identity, its combine and the suffix of its subgroup operations.
#if defined(OP_ADD)
#define OP_IDENTITY T(0)
#define OP_COMBINE(a, b) ((a) + (b))
#define OP_SUBGROUP Add
#elif defined(OP_MUL)
#define OP_IDENTITY T(1)
#define OP_COMBINE(a, b) ((a) * (b))
#define OP_SUBGROUP Mul
#elif defined(OP_MIN) && (defined(TYPE_F32) || defined(TYPE_F64))
#define OP_IDENTITY T_MAX
#define OP_COMBINE(a, b) nan_min(a, b)
#define OP_SUBGROUP Min
#define OP_SUBGROUP_NAN_AWARE
#elif defined(OP_MIN)
#define OP_IDENTITY T_MAX
#define OP_COMBINE(a, b) min(a, b)
#define OP_SUBGROUP Min
#elif defined(OP_MAX) && (defined(TYPE_F32) || defined(TYPE_F64))
#define OP_IDENTITY T_MIN
#define OP_COMBINE(a, b) nan_max(a, b)
#define OP_SUBGROUP Max
#define OP_SUBGROUP_NAN_AWARE
#elif defined(OP_MAX)
#define OP_IDENTITY T_MIN
#define OP_COMBINE(a, b) max(a, b)
#define OP_SUBGROUP Max
#elif defined(OP_AND)
#define OP_IDENTITY (~T(0))
#define OP_COMBINE(a, b) ((a) & (b))
#define OP_SUBGROUP And
#elif defined(OP_OR)
#define OP_IDENTITY T(0)
#define OP_COMBINE(a, b) ((a) | (b))
#define OP_SUBGROUP Or
#else
#define OP_IDENTITY T(0)
#define OP_COMBINE(a, b) ((a) ^ (b))
#define OP_SUBGROUP Xor
#endif
#define GPUSCAN_PASTE(a, b) a##b
#if defined(OP_SUBGROUP_NAN_AWARE)
#define GPUSCAN_NAN_AWARE_OP(prefix, suffix, x) GPUSCAN_NAN_AWARE(prefix, suffix, x)
#define SUBGROUP_INCLUSIVE(x) GPUSCAN_NAN_AWARE_OP(subgroupInclusive, OP_SUBGROUP, x)
#define SUBGROUP_EXCLUSIVE(x) GPUSCAN_NAN_AWARE_OP(subgroupExclusive, OP_SUBGROUP, x)
#define SUBGROUP_REDUCE(x) GPUSCAN_NAN_AWARE_OP(subgroup, OP_SUBGROUP, x)
#else
#define GPUSCAN_SUBGROUP_OP(prefix, suffix) GPUSCAN_PASTE(prefix, suffix)
#define SUBGROUP_INCLUSIVE(x) GPUSCAN_SUBGROUP_OP(subgroupInclusive, OP_SUBGROUP)(x)
#define SUBGROUP_EXCLUSIVE(x) GPUSCAN_SUBGROUP_OP(subgroupExclusive, OP_SUBGROUP)(x)
#define SUBGROUP_REDUCE(x) GPUSCAN_SUBGROUP_OP(subgroup, OP_SUBGROUP)(x)
#endif
#else
SPEC_CONSTANT(13, uint, OP, OP_ID_ADD);
// The subgroup operation `prefix`<Op> (subgroupInclusive, subgroupExclusive or subgroup: a reduction) for
// OP, as an expression: only its uses compile, so kernels without subgroup arithmetic never name one.
#if defined(TYPE_F32) || defined(TYPE_F64)
#define GPUSCAN_OP_SELECT(prefix, x) \
  (OP == OP_ID_MIN ? GPUSCAN_NAN_AWARE(prefix, Min, x) : OP == OP_ID_MAX ? GPUSCAN_NAN_AWARE(prefix, Max, x) \
   : OP == OP_ID_MUL ? prefix##Mul(x) : prefix##Add(x))
#define OP_IDENTITY (OP == OP_ID_MIN ? T_MAX : OP == OP_ID_MAX ? T_MIN : OP == OP_ID_MUL ? T(1) : T(0))
#define OP_COMBINE(a, b) \
  (OP == OP_ID_MIN ? nan_min(a, b) : OP == OP_ID_MAX ? nan_max(a, b) : OP == OP_ID_MUL ? (a) * (b) : (a) + (b))
#else
#define GPUSCAN_OP_SELECT(prefix, x) \
  (OP == OP_ID_MIN ? prefix##Min(x) : OP == OP_ID_MAX ? prefix##Max(x) \
   : OP == OP_ID_MUL ? prefix##Mul(x) : OP == OP_ID_AND ? prefix##And(x) \
   : OP == OP_ID_OR ? prefix##Or(x) : OP == OP_ID_XOR ? prefix##Xor(x) : prefix##Add(x))
#define OP_IDENTITY \
  (OP == OP_ID_MIN ? T_MAX : OP == OP_ID_MAX ? T_MIN : OP == OP_ID_MUL ? T(1) : OP == OP_ID_AND ? ~T(0) : T(0))
#define OP_COMBINE(a, b) \
  (OP == OP_ID_MIN ? min(a, b) : OP == OP_ID_MAX ? max(a, b) : OP == OP_ID_MUL ? (a) * (b) \
   : OP == OP_ID_AND ? (a) & (b) : OP == OP_ID_OR ? (a) | (b) : OP == OP_ID_XOR ? (a) ^ (b) : (a) + (b))
#endif
#define SUBGROUP_INCLUSIVE(x) GPUSCAN_OP_SELECT(subgroupInclusive, x)
#define SUBGROUP_EXCLUSIVE(x) GPUSCAN_OP_SELECT(subgroupExclusive, x)
#define SUBGROUP_REDUCE(x) GPUSCAN_OP_SELECT(subgroup, x)
#endif

T op_identity() { return OP_IDENTITY; }
T op_combine(T a, T b) { return OP_COMBINE(a, b); }

#endif
