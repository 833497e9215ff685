#version 450
// The Python module's dtype widening on the GPU: 32-bit integers to 64 bits (sign-extended for int32,
// zero-extended for uint32), so that cumsum and cumprod of int32 and uint32 device arrays accumulate in
// numpy's 64-bit dtype. Elements and offsets in 32-bit words; a 2-D grid for more than 65535 workgroups.
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Source { uint src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Destination { uint dst[]; };

layout(push_constant) uniform Params {
  uint count;       // elements
  uint src_offset;  // words
  uint dst_offset;  // words
  uint sign_extend;
  uint row;         // invocations per row of the grid
} p;

void main() {
  const uint i = gl_GlobalInvocationID.y * p.row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  const uint v = src[p.src_offset + i];
  dst[p.dst_offset + 2u * i] = v;
  dst[p.dst_offset + 2u * i + 1u] = p.sign_extend != 0u && int(v) < 0 ? 0xffffffffu : 0u;
}
