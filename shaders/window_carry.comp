#version 450
// Between the windows of a scan longer than one binding (src/core/windows.hpp), one invocation:
//   SAVE:     g_aux[1] = g_src[0]   the window's last input, saved before an in-place scan overwrites it;
//   otherwise g_aux[0] = the running total after the window: its last output, combined (exclusive scans)
//             with the saved last input. The next window's root dispatch reads it as its carry-in.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
SPEC_CONSTANT(2, bool, SAVE, false);

#include "common/ops.glsl"
#include "common/pass_io.glsl"

void main() {
  pass_begin();
  if (gl_GlobalInvocationID.x != 0u || gl_GlobalInvocationID.y != 0u) return;
  const T last = src_at(0u);
  if (SAVE) g_aux[pc.aux_offset + 1u] = last;
  else g_aux[pc.aux_offset] = INCLUSIVE ? last : op_combine(last, g_aux[pc.aux_offset + 1u]);
}
