// The element type T and the operator as a monoid: op_identity() and an associative op_combine(a, b)
// (left operand first, so non-commutative operators keep their order), plus the subgroup scans that
// implement the same operator. Selected by -D defines from shaders/variants.cmake.
#ifndef GPUSCAN_OPS_GLSL
#define GPUSCAN_OPS_GLSL

// VEC4 is the type of four consecutive elements, loaded and stored as one 16-byte access.
// to_bits / from_bits move a value in and out of a 32-bit word (the look-back's tile states).
#if defined(TYPE_U32)
#define T uint
#define VEC4 uvec4
uint to_bits(T v) { return v; }
T from_bits(uint b) { return b; }
#elif defined(TYPE_I32)
#define T int
#define VEC4 ivec4
uint to_bits(T v) { return uint(v); }
T from_bits(uint b) { return int(b); }
#elif defined(TYPE_F32)
#define T float
#define VEC4 vec4
uint to_bits(T v) { return floatBitsToUint(v); }
T from_bits(uint b) { return uintBitsToFloat(b); }
#else
#error "define one of TYPE_U32, TYPE_I32, TYPE_F32"
#endif

#if defined(OP_ADD)
T op_identity() { return T(0); }
T op_combine(T a, T b) { return a + b; }
#define SUBGROUP_INCLUSIVE(x) subgroupInclusiveAdd(x)
#define SUBGROUP_EXCLUSIVE(x) subgroupExclusiveAdd(x)
#define SUBGROUP_REDUCE(x) subgroupAdd(x)
#else
#error "define an operator (OP_ADD)"
#endif

#endif
