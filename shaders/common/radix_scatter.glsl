// One tile of an LSD radix sort pass, loaded, ranked and written out (sort_downsweep.comp and
// sort_onesweep.comp, which differ only in where each digit's output position comes from). Needs
// common/radix_key.glsl and common/radix_rank.glsl. VALUES_32 / VALUES_64: values of 4 or 8 bytes move
// with the keys; FLAG_INDEX_VALUES makes them the keys' input positions.
//
//   sort_tile_load(...)    keys of the tile in the ranking's layout, ranked (radix_rank.glsl)
//   the caller fills sh_digit_base[d]: output position of the tile's first key with digit d, minus
//                          sh_digit_first[d] (its position in the tile)
//   sort_tile_store(...)   keys (and values) staged in shared memory in digit order, then written from
//                          there, so consecutive invocations write consecutive addresses within a digit
#ifndef GPUSCAN_RADIX_SCATTER_GLSL
#define GPUSCAN_RADIX_SCATTER_GLSL

#if defined(VALUES_64)
#define VALUE uvec2
const uint VALUE_BYTES = 8u;
#elif defined(VALUES_32)
#define VALUE uint
const uint VALUE_BYTES = 4u;
#endif

// The outputs and the values by element index, as key_in (common/radix_key.glsl).
#if defined(ADDRESS_DEVICE)
layout(buffer_reference, std430, buffer_reference_align = 4 * KEY_WORDS) writeonly buffer KeysOut { KEY v[]; };
void key_out_put(uint i, KEY key) { KeysOut(bda_address(pc.keys_out_address, i, 4u * KEY_WORDS)).v[0] = key; }
#if defined(VALUE)
layout(buffer_reference, std430, buffer_reference_align = VALUE_BYTES) readonly buffer ValuesIn { VALUE v[]; };
layout(buffer_reference, std430, buffer_reference_align = VALUE_BYTES) writeonly buffer ValuesOut { VALUE v[]; };
VALUE value_in(uint i) { return ValuesIn(bda_address(pc.values_in_address, i, VALUE_BYTES)).v[0]; }
void value_out_put(uint i, VALUE v) { ValuesOut(bda_address(pc.values_out_address, i, VALUE_BYTES)).v[0] = v; }
#endif
#else
layout(binding = 1, std430) writeonly buffer KeysOut { KEY g_keys_out[]; };
void key_out_put(uint i, KEY key) { g_keys_out[pc.keys_out + i] = key; }
#if defined(VALUE)
layout(binding = 3, std430) readonly buffer ValuesIn { VALUE g_values_in[]; };
layout(binding = 4, std430) writeonly buffer ValuesOut { VALUE g_values_out[]; };
VALUE value_in(uint i) { return g_values_in[pc.values_in + i]; }
void value_out_put(uint i, VALUE v) { g_values_out[pc.values_out + i] = v; }
#endif
#endif

shared uint sh_digit_base[RADIX];

void stage(uint p, uint v) { sh_sort[p] = v; }
void stage(uint p, uvec2 v) {
  sh_sort[2u * p] = v.x;
  sh_sort[2u * p + 1u] = v.y;
}
void unstage(uint p, out uint v) { v = sh_sort[p]; }
void unstage(uint p, out uvec2 v) { v = uvec2(sh_sort[2u * p], sh_sort[2u * p + 1u]); }

// Loads the tile's `count` keys from `first` in the ranking's layout, with their digits.
void sort_tile_keys(uint first, uint count, out KEY keys[KEYS_PER_LANE], out bool valid[KEYS_PER_LANE],
                    out uint digits[KEYS_PER_LANE]) {
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint p = rank_position(k);
    valid[k] = p < count;
    keys[k] = valid[k] ? key_in(first + p) : KEY(0u);
    digits[k] = digit_of(keys[k]);
  }
}

// Loads the tile's `count` keys from `first` and ranks them.
void sort_tile_load(uint first, uint count, out KEY keys[KEYS_PER_LANE], out bool valid[KEYS_PER_LANE],
                    out uint ranks[KEYS_PER_LANE]) {
  uint digits[KEYS_PER_LANE];
  sort_tile_keys(first, count, keys, valid, digits);
  rank_tile(digits, valid, ranks);
}

// Writes the ranked tile to sh_digit_base[digit] + its position in the tile (sh_digit_base set and
// visible: the first barrier below orders it).
void sort_tile_store(uint first, uint count, KEY keys[KEYS_PER_LANE], bool valid[KEYS_PER_LANE],
                     uint ranks[KEYS_PER_LANE]) {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k)
    if (valid[k]) stage(ranks[k], keys[k]);
  barrier();
  // Out in sorted order: invocation lid takes positions lid, lid + W, ...
  uint out_digits[KEYS_PER_LANE];
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint p = k * w + lid;
    out_digits[k] = 0u;
    if (p >= count) continue;
    KEY key;
    unstage(p, key);
    out_digits[k] = digit_of(key);
    key_out_put(sh_digit_base[out_digits[k]] + p, key);
  }
#if defined(VALUE)
  barrier();  // the keys are out of sh_sort
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    if (!valid[k]) continue;
    const uint p = rank_position(k);
#if defined(VALUES_32)
    const VALUE v = (pc.flags & FLAG_INDEX_VALUES) != 0u ? first + p : value_in(first + p);
#else
    const VALUE v = value_in(first + p);
#endif
    stage(ranks[k], v);
  }
  barrier();
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint p = k * w + lid;
    if (p >= count) continue;
    VALUE v;
    unstage(p, v);
    value_out_put(sh_digit_base[out_digits[k]] + p, v);
  }
#endif
}

#endif
