#version 450
// Segmented reduction by offsets, pass 1: the head flags of the segmented scan that does the work.
// Element i (of pc.n) gets flag 1 where some offsets[s], s <= S, is i, else 0: a binary search for the
// first offset >= i, so one dispatch over the elements writes every flag (no clearing pass) and any
// number of empty segments at one position costs nothing extra. The elements before offsets[0] and from
// offsets[S] on form segments of their own (element 0 always starts one), which a reduction ignores and
// a scan by offsets scans as such.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/segment_offsets.glsl"

void main() {
  pass_begin();
  const uint block = linear_block_index();
  if (block >= g_pass_blocks) return;
  const uint i = block * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i >= g_pass_n) return;
  const uint entries = pc.segments + 1u;
  uint lo = 0u, hi = entries;  // the first s in [0, S] with offsets[s] >= i, or S + 1
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2u;
    if (offset_at(mid) < i) lo = mid + 1u;
    else hi = mid;
  }
  dst_put(i, lo < entries && offset_at(lo) == i ? 1u : 0u);
}
