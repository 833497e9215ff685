// The element type T and the operator as a monoid: op_identity() and an associative op_combine(a, b)
// (left operand first, so non-commutative operators keep their order), plus the subgroup scans that
// implement the same operator. Selected by -D defines from shaders/variants.cmake.
#ifndef GPUSCAN_OPS_GLSL
#define GPUSCAN_OPS_GLSL

#if defined(TYPE_U32)
#define T uint
#elif defined(TYPE_I32)
#define T int
#elif defined(TYPE_F32)
#define T float
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
