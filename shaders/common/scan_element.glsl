// What the subgroup-totals and tile layers scan: SCAN_ELEMENT under an associative scan_combine(a, b)
// (left operand first) with identity scan_identity(), four of them at a time as a SCAN_VECTOR.
// By default that is ops.glsl's T and operator, and these are plain aliases of it, so the code those
// layers generate for ordinary scans is what it was before they were made generic. A kernel that
// scans something else -- the segmented scans' (head, value) pairs, segmented.glsl -- defines
// SCAN_ELEMENT and everything below before it includes any scan layer.
//
//   scan_subgroup(x, before, total)  before = the combination of x over lower lanes of the subgroup
//                                    (identity in lane 0), total = over all lanes; from uniform control flow
//   scan_vector_inclusive(v)         v scanned inside the vector: .y = x (+) y, .z = x (+) y (+) z, ...
//   scan_vector_last(v)              its last element (the vector's total once scanned)
//   scan_load_vector(tile, k)        the k-th vector this invocation owns in a tile (tile_layout.glsl)
#ifndef GPUSCAN_SCAN_ELEMENT_GLSL
#define GPUSCAN_SCAN_ELEMENT_GLSL

#ifndef SCAN_ELEMENT
#define SCAN_ELEMENT_IS_T  // what only makes sense for T (tile_store) is compiled
#define SCAN_ELEMENT T
#define SCAN_VECTOR VEC4
#define scan_identity op_identity
#define scan_combine op_combine
#define scan_load_vector load_vector

// In a kernel that defines SCAN_SUBGROUP_SHUFFLES, for the 32-bit integers, one inclusive subgroup scan
// and two shuffles (the lane below's inclusive value, the last lane's) replace an exclusive scan and a
// reduction. On the H200 that made the u32/i32 single-pass scan 2-6 % faster, but NVIDIA's compile of
// the f32 and u64 single-pass kernels much slower (f32 up to 1.8x) and reduce-then-scan's up to 2.5 %
// slower (bench/RESULTS.md), so only single_pass.comp asks for it, and the other types
// keep the two subgroup operations. The shuffles are why the subgroup kernels need shuffle and
// shuffle_relative besides arithmetic (DeviceInfo::has_subgroup_arithmetic).
#if !defined(GPUSCAN_NO_SUBGROUPS) && defined(SCAN_SUBGROUP_SHUFFLES) && (defined(TYPE_U32) || defined(TYPE_I32))
#define GPUSCAN_SUBGROUP_SCAN_BY_SHUFFLE
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif

void scan_subgroup(T x, out T before, out T total) {
#if defined(GPUSCAN_NO_SUBGROUPS)  // a subgroup of one invocation (subgroup_basic.glsl)
  before = op_identity();
  total = x;
#elif defined(GPUSCAN_SUBGROUP_SCAN_BY_SHUFFLE)
  const T inclusive = SUBGROUP_INCLUSIVE(x);
  const T below = subgroupShuffleUp(inclusive, 1u);
  before = gl_SubgroupInvocationID == 0u ? op_identity() : below;
  total = subgroupShuffle(inclusive, gl_SubgroupSize - 1u);
#else
  before = SUBGROUP_EXCLUSIVE(x);
  total = SUBGROUP_REDUCE(x);
#endif
}

VEC4 scan_vector_inclusive(VEC4 v) {
  v.y = op_combine(v.x, v.y);
  v.z = op_combine(v.y, v.z);
  v.w = op_combine(v.z, v.w);
  return v;
}

T scan_vector_last(VEC4 v) { return v.w; }
#endif

#endif
