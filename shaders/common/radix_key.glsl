// Keys of the LSD radix sort (include/gpuscan/vulkan/sort.hpp): how a key is held (KEY_64: a uvec2, low
// word first; else a uint), the order it sorts in, and its digit in one pass. Keys move as they are; only
// their digits see the ordering transform, so NaN payloads and every other bit pattern survive a sort.
//   unsigned  the bits as they are
//   signed    the sign bit flipped (two's complement order)
//   float     sign set: every bit flipped; sign clear: the sign bit set (IEEE order), with two changes
//             that give numpy's order: -0.0 digits as +0.0 (equal keys, kept in input order) and every
//             NaN, whatever its sign and payload, digits as all ones (after +inf, in input order).
// Descending sorts take each digit's complement, so equal keys keep their input order there too.
#ifndef GPUSCAN_RADIX_KEY_GLSL
#define GPUSCAN_RADIX_KEY_GLSL

#include "common/backend.glsl"

// K: keys each invocation takes per tile; a tile holds W·K keys (the id of the tile kernels' vectors
// per lane, which it replaces here).
SPEC_CONSTANT(3, uint, KEYS_PER_LANE, 8u);

const uint RADIX = 256u;  // digits of an 8-bit pass; a pass of b < 8 bits uses the first 2^b

// pc.flags, set by src/vulkan/sort.cpp.
const uint KEY_KIND_MASK = 3u;
const uint KEY_SIGNED = 1u;
const uint KEY_FLOAT = 2u;
const uint FLAG_DESCENDING = 4u;
const uint FLAG_INDEX_VALUES = 8u;  // the values are the keys' positions in the input (argsort's first pass)

PARAMS_BLOCK uniform SortParams {
  uint n;           // keys (with `dynamic`: their upper bound)
  uint tiles;       // ceil(n / (W·K)): of the upper bound with `dynamic`
  uint groups_x;    // workgroups along x of the dispatch's (x, y) grid
  uint shift;       // this pass's digit: bits [shift, shift + bits) of the ordered key
  uint bits;        // 0 to 8 (0: one digit, a stable copy)
  uint flags;
  uint keys_in;     // element offsets inside bindings 0 to 4
  uint keys_out;
  uint counts;
  uint values_in;
  uint values_out;
  uint state;       // sort_onesweep: word offset of the tile states in binding 2
  uint pass;        // sort_onesweep: this pass's offsets exceed the digits' by pass · keys (mod 2^32)
  uint dynamic;     // 0: n holds; else 1 + the index in g_count_words of the key count, written on the
                    // GPU from SortArgs::count_from (shaders/indirect_count.comp, clamped to n)
#if defined(ADDRESS_DEVICE)
  // Words 14-21 (src/vulkan/sort.cpp): where the keys and values are, instead of bindings 0, 1, 3 and 4
  // (the element offsets above are 0 then), so that they may be longer than one binding.
  layout(offset = 56) uvec2 keys_in_address;
  uvec2 keys_out_address;
  uvec2 values_in_address;
  uvec2 values_out_address;
#endif
} pc;

// Binding 5: with pc.dynamic, the words shaders/indirect_count.comp wrote (src/core/indirect.hpp).
layout(binding = 5, std430) readonly buffer CountWords { uint g_count_words[]; };

// The keys to sort: pc.n, or the count read from GPU memory. Tiles from sort_count() on are empty: they
// count no digit and write nothing (the dispatches and the digit-count array are sized for pc.tiles).
uint sort_count() { return pc.dynamic == 0u ? pc.n : g_count_words[pc.dynamic - 1u]; }

#if defined(KEY_64)
#define KEY uvec2
const uint KEY_WORDS = 2u;
#else
#define KEY uint
const uint KEY_WORDS = 1u;
#endif

// The keys to sort, by element index: through binding 0, or with ADDRESS_DEVICE (the ".bda" variants of
// shaders/variants.cmake) through their 64-bit address, whatever maxStorageBufferRange.
#if defined(ADDRESS_DEVICE)
#include "common/bda.glsl"
layout(buffer_reference, std430, buffer_reference_align = 4 * KEY_WORDS) readonly buffer KeysIn { KEY v[]; };
KEY key_in(uint i) { return KeysIn(bda_address(pc.keys_in_address, i, 4u * KEY_WORDS)).v[0]; }
#else
layout(binding = 0, std430) readonly buffer KeysIn { KEY g_keys_in[]; };
KEY key_in(uint i) { return g_keys_in[pc.keys_in + i]; }
#endif

uint ordered_bits(uint b, uint kind) {
  if (kind == KEY_SIGNED) return b ^ 0x80000000u;
  if (kind == KEY_FLOAT) {
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu;  // NaN
    if (b == 0x80000000u) b = 0u;                              // -0.0
    return (b & 0x80000000u) != 0u ? ~b : b | 0x80000000u;
  }
  return b;
}

uvec2 ordered_bits(uvec2 b, uint kind) {
  if (kind == KEY_SIGNED) return uvec2(b.x, b.y ^ 0x80000000u);
  if (kind == KEY_FLOAT) {
    const uint high = b.y & 0x7FFFFFFFu;
    if (high > 0x7FF00000u || (high == 0x7FF00000u && b.x != 0u)) return uvec2(0xFFFFFFFFu);  // NaN
    if (b.y == 0x80000000u && b.x == 0u) b.y = 0u;                                            // -0.0
    return (b.y & 0x80000000u) != 0u ? ~b : uvec2(b.x, b.y | 0x80000000u);
  }
  return b;
}

// The bits of k from `shift` up (shift < the key's width).
uint bits_from(uint k, uint shift) { return k >> shift; }
uint bits_from(uvec2 k, uint shift) {
  if (shift >= 32u) return k.y >> (shift - 32u);
  return shift == 0u ? k.x : (k.x >> shift) | (k.y << (32u - shift));
}

// Digits of this pass: 2^bits.
uint radix_digits() { return 1u << pc.bits; }

// The digit of bits [shift, shift + bits) (bits 0: the one digit 0).
uint digit_at(KEY key, uint shift, uint bits) {
  if (bits == 0u) return 0u;
  const uint top = (1u << bits) - 1u;
  const uint d = bits_from(ordered_bits(key, pc.flags & KEY_KIND_MASK), shift) & top;
  return (pc.flags & FLAG_DESCENDING) != 0u ? top - d : d;
}

uint digit_of(KEY key) { return digit_at(key, pc.shift, pc.bits); }

uint tile_keys() { return gl_WorkGroupSize.x * KEYS_PER_LANE; }

// The keys of the tile from key `first` on, of n keys in all: 0 for a tile past the end.
uint tile_count(uint first, uint n) { return first < n ? min(n - first, tile_keys()) : 0u; }

// This workgroup's tile (the grid is 2-D past maxComputeWorkGroupCount[0]).
uint sort_tile() { return gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x; }

#endif
