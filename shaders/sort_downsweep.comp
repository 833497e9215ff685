#version 450
// LSD radix sort, pass part 2 of 2 (src/vulkan/sort.cpp): one tile's keys (and values) ranked stably by
// digit (common/radix_rank.glsl), staged in shared memory in that order, and written from there to
// output position scanned[digit · tiles + tile] + (position in the tile - the digit's first position in
// it), so consecutive invocations write consecutive addresses within each digit. VALUES_32 / VALUES_64:
// values of 4 or 8 bytes move with the keys; FLAG_INDEX_VALUES makes them the keys' input positions.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/radix_key.glsl"
#include "common/radix_rank.glsl"

layout(binding = 1, std430) writeonly buffer KeysOut { KEY g_keys_out[]; };

#if defined(VALUES_64)
#define VALUE uvec2
#elif defined(VALUES_32)
#define VALUE uint
#endif
#if defined(VALUE)
layout(binding = 3, std430) readonly buffer ValuesIn { VALUE g_values_in[]; };
layout(binding = 4, std430) writeonly buffer ValuesOut { VALUE g_values_out[]; };
#endif

shared uint sh_digit_base[RADIX];  // output position of a digit's keys minus their first tile position

void stage(uint p, uint v) { sh_sort[p] = v; }
void stage(uint p, uvec2 v) { sh_sort[2u * p] = v.x; sh_sort[2u * p + 1u] = v.y; }
void unstage(uint p, out uint v) { v = sh_sort[p]; }
void unstage(uint p, out uvec2 v) { v = uvec2(sh_sort[2u * p], sh_sort[2u * p + 1u]); }

void main() {
  const uint tile = sort_tile();
  if (tile >= pc.tiles) return;  // the grid's padding: the whole workgroup leaves
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint first = tile * tile_keys();
  const uint count = min(pc.n - first, tile_keys());

  KEY keys[KEYS_PER_LANE];
  uint digits[KEYS_PER_LANE];
  bool valid[KEYS_PER_LANE];
  uint ranks[KEYS_PER_LANE];
  for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint p = rank_position(k);
    valid[k] = p < count;
    keys[k] = valid[k] ? g_keys_in[pc.keys_in + first + p] : KEY(0u);
    digits[k] = digit_of(keys[k]);
  }
  rank_tile(digits, valid, ranks);
  const uint radix = radix_digits();
  for (uint d = lid; d < radix; d += w) sh_digit_base[d] = g_counts[pc.counts + d * pc.tiles + tile] - sh_digit_first[d];

  for (uint k = 0u; k < KEYS_PER_LANE; ++k)
    if (valid[k]) stage(ranks[k], keys[k]);
  barrier();
  // Out in sorted order: invocation lid takes positions lid, lid + W, ...
  uint out_digits[KEYS_PER_LANE];
  for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint p = k * w + lid;
    out_digits[k] = 0u;
    if (p >= count) continue;
    KEY key;
    unstage(p, key);
    out_digits[k] = digit_of(key);
    g_keys_out[pc.keys_out + sh_digit_base[out_digits[k]] + p] = key;
  }

#if defined(VALUE)
  barrier();  // the keys are out of sh_sort
  for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    if (!valid[k]) continue;
    const uint p = rank_position(k);
#if defined(VALUES_32)
    const VALUE v = (pc.flags & FLAG_INDEX_VALUES) != 0u ? first + p : g_values_in[pc.values_in + first + p];
#else
    const VALUE v = g_values_in[pc.values_in + first + p];
#endif
    stage(ranks[k], v);
  }
  barrier();
  for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint p = k * w + lid;
    if (p >= count) continue;
    VALUE v;
    unstage(p, v);
    g_values_out[pc.values_out + sh_digit_base[out_digits[k]] + p] = v;
  }
#endif
}
