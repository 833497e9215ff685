#version 450
// Segmented reduction by offsets, pass 3: out[s] is the inclusive segmented scan (src, pass 2) at the
// last element of segment s, or the identity where the segment is empty (offsets[s] == offsets[s+1]).
// One invocation per segment; pc.n is the number of scanned elements, pc.segments the number of outputs.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"
#include "common/segment_offsets.glsl"

void main() {
  pass_begin();
  const uint block = linear_block_index();
  if (block >= g_pass_blocks) return;
  const uint s = block * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (s >= pc.segments) return;
  const uint first = offset_at(s);
  const uint end = offset_at(s + 1u);
  // end <= n guards the read when the offsets break the precondition.
  if (first < end && end <= g_pass_n) dst_put(s, src_at(end - 1u));
  else dst_put(s, op_identity());
}
