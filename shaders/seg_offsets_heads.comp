#version 450
// Segmented reduction (and scan) by offsets, pass 1: the head flags of the segmented scan that does the
// work. Element i (of pc.n) gets flag 1 where some offsets[s], s <= S, is i, else 0: a binary search for
// the first offset >= i, so one dispatch over the elements writes every flag (no clearing pass) and any
// number of empty segments at one position costs nothing extra. The elements before offsets[0] and
// from offsets[S] on form segments of their own (element 0 always starts one), which a reduction ignores
// and a scan by offsets scans as such. One invocation of the workgroup first bounds the search to the
// offsets that fall in the workgroup's W elements, so each element searches only among those (about
// log2(W / mean length) steps instead of log2(S)).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/segment_offsets.glsl"

shared uint sh_bounds[2];  // the workgroup's range of offsets: [lower_bound(first), lower_bound(end)]

#include "common/offset_search.glsl"

void main() {
  pass_begin();
  const uint block = linear_block_index();
  if (block >= g_pass_blocks) return;  // the whole workgroup: the barrier below stays uniform
  const uint entries = pc.segments + 1u;
  const uint first = block * gl_WorkGroupSize.x;  // < n: block < blocks
  if (gl_LocalInvocationID.x == 0u) {
    sh_bounds[0] = offset_bound(first, 0u, entries, false);
    sh_bounds[1] = offset_bound(first + min(gl_WorkGroupSize.x, g_pass_n - first), sh_bounds[0], entries, false);
  }
  barrier();
  const uint i = first + gl_LocalInvocationID.x;
  if (i >= g_pass_n) return;
  // Sorted offsets put lower_bound(i) in [bounds[0], bounds[1]]; searching [bounds[0], bounds[1]) finds it.
  const uint s = offset_bound(i, sh_bounds[0], sh_bounds[1], false);
  dst_put(i, s < entries && offset_at(s) == i ? 1u : 0u);
}
