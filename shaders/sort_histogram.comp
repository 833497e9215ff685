#version 450
// LSD radix sort, Onesweep's first step (src/vulkan/sort.cpp): the digit counts of every pass at once,
// g_counts[pass · 256 + digit], over the whole input (a digit's count does not depend on the order the
// earlier passes leave the keys in). Workgroups stride over the keys, count in shared memory and add
// their counts with one global atomic per non-zero counter. No workgroup waits for another.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/radix_key.glsl"

const uint MAX_PASSES = 8u;
// Zeroed by the host (vkCmdFillBuffer) before this dispatch.
layout(binding = 2, std430) buffer Counts { uint g_counts[]; };

shared uint sh_counts[MAX_PASSES * RADIX];

// pc.shift: the first pass's lowest bit; pc.bits: the range's bits in all; pc.tiles: passes;
// pc.groups_x: workgroups in the grid.
void main() {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint passes = pc.tiles;
  for (uint i = lid; i < passes * RADIX; i += w) sh_counts[i] = 0u;
  barrier();
  const uint n = sort_count();
  const uint stride = pc.groups_x * w;
  for (uint i = gl_WorkGroupID.x * w + lid; i < n; i += stride) {
    const KEY key = key_in(i);
    for (uint p = 0u; p < passes; ++p) {
      const uint shift = pc.shift + p * 8u;
      atomicAdd(sh_counts[p * RADIX + digit_at(key, shift, min(8u, pc.shift + pc.bits - shift))], 1u);
    }
  }
  barrier();
  for (uint i = lid; i < passes * RADIX; i += w) {
    const uint c = sh_counts[i];
    if (c != 0u) atomicAdd(g_counts[pc.counts + i], c);
  }
}
