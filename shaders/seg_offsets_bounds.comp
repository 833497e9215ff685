#version 450
// Segmented reduction by offsets, before the tiles (seg_offsets_tiles.comp): for each tile t of `span`
// elements, the range of offsets that fall in it and on the element after it -- [lower_bound(t * span),
// upper_bound(t * span + span)) over offsets[0..S] -- as two words per tile. One invocation per tile:
// each search is log2(S) dependent loads, which here overlap across thousands of invocations instead
// of stalling every tile's workgroup before its loads.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

PARAMS_BLOCK uniform BoundsParams {
  uint tiles;
  uint span;            // elements per tile
  uint segments;        // S
  uint offsets_offset;  // element offset of offsets[0] in binding 4
  uint bounds_offset;   // element offset of tile 0's two words in binding 1
  uint groups_x;        // grid width, to linearize a 2-D grid
} pc;

layout(binding = 1, std430) writeonly buffer Bounds { uint g_bounds[]; };
layout(binding = 4, std430) readonly buffer Offsets { uint g_offsets[]; };

uint offset_at(uint s) { return g_offsets[pc.offsets_offset + s]; }

#include "common/offset_search.glsl"

void main() {
  const uint t = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (t >= pc.tiles) return;
  const uint first = t * pc.span;  // < n < 2^32
  const uint entries = pc.segments + 1u;
  const uint lo = offset_bound(first, 0u, entries, false);
  // first + span may pass 2^32 - 1 only for the last tile, whose range then runs to the end.
  const uint hi = first > 0xffffffffu - pc.span ? entries : offset_bound(first + pc.span, lo, entries, true);
  g_bounds[pc.bounds_offset + 2u * t] = lo;
  g_bounds[pc.bounds_offset + 2u * t + 1u] = hi;
}
