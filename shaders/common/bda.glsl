// 64-bit device addresses (GL_EXT_buffer_reference_uvec2: a uvec2, low word first) of the elements of an
// array reached through GL_EXT_buffer_reference, for the ".bda" kernel variants (common/pass_io.glsl,
// common/radix_key.glsl).
#ifndef GPUSCAN_BDA_GLSL
#define GPUSCAN_BDA_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

// base + index * bytes in 64 bits. Indexing the reference's array (`.v[i]`) is not enough: NVIDIA's driver
// formed i * sizeof(T) in 32 bits, so every element past 4 GiB of a window was read and written wrong
// (H200: half of a 2^31-element u32 scan).
uvec2 bda_address(uvec2 base, uint index, uint bytes) {
  uint hi, lo, carry;
  umulExtended(index, bytes, hi, lo);
  const uint low = uaddCarry(base.x, lo, carry);
  return uvec2(low, base.y + hi + carry);
}

#endif
