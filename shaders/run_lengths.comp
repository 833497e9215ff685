#version 450
// Run-length encoding, after the compaction that found the runs (src/vulkan/run_length.cpp), one
// dispatch of a fixed grid that strides over the runs, whose number only the GPU knows (binding 3):
//   RUNS_FROM_STARTS (encode): binding 0 holds the input index where each run starts, in order; run r
//                    is starts[r + 1] - starts[r] long, the last n - starts[runs - 1].
//   RUNS_FROM_EDGES  (non-trivial runs): binding 0 holds the first and the last index of each run of two
//                    or more elements, one after the other; run r starts at edges[2r] and is
//                    edges[2r + 1] - edges[2r] + 1 long. Binding 3 counts the edges; the kernel writes
//                    the runs (half as many) to binding 4 and the starts to binding 2.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

PARAMS_BLOCK uniform RunParams {
  uint n;               // elements of the encoded input
  uint in_offset;       // element (u32) offsets inside bindings 0..4
  uint lengths_offset;
  uint offsets_offset;
  uint count_offset;
  uint runs_offset;
} pc;

layout(binding = 0, std430) readonly buffer Found { uint g_found[]; };
layout(binding = 1, std430) writeonly buffer Lengths { uint g_lengths[]; };
layout(binding = 2, std430) writeonly buffer Offsets { uint g_offsets[]; };
layout(binding = 3, std430) readonly buffer Count { uint g_count[]; };
layout(binding = 4, std430) writeonly buffer Runs { uint g_runs[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  // The compaction keeps at most n; the clamp keeps every read inside the found indices regardless.
  const uint found = min(g_count[pc.count_offset], pc.n);
#if defined(RUNS_FROM_EDGES)
  const uint runs = found / 2u;
  if (gl_GlobalInvocationID.x == 0u) g_runs[pc.runs_offset] = runs;
  for (uint r = gl_GlobalInvocationID.x; r < runs; r += stride) {
    const uint first = g_found[pc.in_offset + 2u * r];
    const uint last = g_found[pc.in_offset + 2u * r + 1u];
    g_offsets[pc.offsets_offset + r] = first;
    g_lengths[pc.lengths_offset + r] = last - first + 1u;
  }
#elif defined(RUNS_FROM_STARTS)
  for (uint r = gl_GlobalInvocationID.x; r < found; r += stride) {
    const uint end = r + 1u < found ? g_found[pc.in_offset + r + 1u] : pc.n;
    g_lengths[pc.lengths_offset + r] = end - g_found[pc.in_offset + r];
  }
#else
#error "define RUNS_FROM_STARTS or RUNS_FROM_EDGES"
#endif
}
