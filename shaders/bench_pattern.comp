#version 450
// Benchmark support for scans larger than the host wants to hold (bench/huge_scan_bench.cpp): with
// CHECK false, fills g_dst[i] with a hash of the global index base + i (random-looking 32-bit values);
// with CHECK true, checks an exclusive u32 sum scan: out[i] + x[i] == out[i + 1] for every i of the window
// whose successor is bound (n_next = n + 1 elements of out), and out[0] == 0 in the first window,
// counting mismatches into g_count[slot] (one slot per window: a window has fewer than 2^31 elements,
// so its count cannot wrap). Together with the scan's own windows, one check per window
// covers every element. A grid-stride loop keeps the grid within one row.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
layout(local_size_x = 256) in;
SPEC_CONSTANT(2, bool, CHECK, false);

PARAMS_BLOCK uniform BenchParams {
  uint n;           // elements of the window
  uint src_offset;  // element offsets inside bindings 0 (input x) and 1 (output / filled buffer)
  uint dst_offset;
  uint next_bound;  // 1: out[n] (the next window's first element) is bound too
  uint first;       // 1: the window starts at element 0
  uint base_lo;     // the window's first global index (fill)
  uint base_hi;
  uint slot;        // the window's mismatch counter
} pc;

layout(binding = 0, std430) readonly buffer Src { uint g_src[]; };
layout(binding = 1, std430) buffer Dst { uint g_dst[]; };
layout(binding = 2, std430) buffer Count { uint g_count[]; };

uint hash(uint lo, uint hi) {
  uint h = lo * 0x9E3779B1u ^ hi * 0x85EBCA77u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  return h ^ (h >> 16);
}

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint mismatches = 0u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
    if (!CHECK) {
      const uint lo = pc.base_lo + i;
      g_dst[pc.dst_offset + i] = hash(lo, pc.base_hi + (lo < pc.base_lo ? 1u : 0u));
      continue;
    }
    if (i == 0u && pc.first != 0u && g_dst[pc.dst_offset] != 0u) ++mismatches;
    if (i + 1u < pc.n || pc.next_bound != 0u)
      if (g_dst[pc.dst_offset + i] + g_src[pc.src_offset + i] != g_dst[pc.dst_offset + i + 1u]) ++mismatches;
  }
  if (CHECK && mismatches != 0u) atomicAdd(g_count[pc.slot], mismatches);
}
