// Segments given by offsets (CSR: segment s covers elements [offsets[s], offsets[s+1]) of the values),
// for seg_offsets_heads.comp and seg_offsets_gather.comp. Adds two words to pass_io.glsl's PassParams:
// the segment count S and where offsets[0] sits (elements of u32) in its binding. The offsets are the
// caller's and may break the precondition (non-decreasing, offsets[S] <= n): every index read from them
// is checked before use, so the results are then unspecified but nothing is accessed out of bounds.
// Include after ops.glsl and instead of pass_io.glsl.
#ifndef GPUSCAN_SEGMENT_OFFSETS_GLSL
#define GPUSCAN_SEGMENT_OFFSETS_GLSL

#if defined(GPUSCAN_PASS_IO_GLSL)
#error "include segment_offsets.glsl instead of pass_io.glsl: it adds segments and offsets_offset to the parameters"
#endif
#define PASS_PARAMS_EXTRA uint segments; uint offsets_offset;
#include "pass_io.glsl"

// Binding 4: the S + 1 offsets (u32).
layout(binding = 4, std430) readonly buffer SegmentOffsets { uint g_offsets[]; };

uint offset_at(uint s) { return g_offsets[pc.offsets_offset + s]; }

#endif
