#version 450
// LSD radix sort, pass part 1 of 2 (src/vulkan/sort.cpp): the digit counts of one tile of W·K keys,
// counted in shared memory and written digit-major, g_counts[digit · tiles + tile], so that one exclusive
// scan of the whole array (record_scan) gives every tile's first output position for every digit. No
// subgroup operation: the counts do not depend on the order in which they are taken.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/radix_key.glsl"

// Per-tile digit counts, digit-major ([digit][tile]), scanned in place before sort_downsweep reads them.
layout(binding = 2, std430) writeonly buffer Counts { uint g_counts[]; };

#include "common/radix_count.glsl"

void main() {
  const uint tile = sort_tile();
  if (tile >= pc.tiles) return;  // the grid's padding: the whole workgroup leaves
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  for (uint d = lid; d < RADIX; d += w) sh_tile_counts[d] = 0u;
  barrier();
  const uint first = tile * tile_keys();
  const uint count = tile_count(first, sort_count());  // 0 past a count from GPU memory: zero counts
  // Keys strided by W, so a subgroup's loads are consecutive; all K loaded before any is counted, so that
  // they are in flight together rather than one per atomic (H200, 2^28 u32 keys: 0.76 ms a pass, was 0.88).
  KEY keys[KEYS_PER_LANE];
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uint i = k * w + lid;
    keys[k] = i < count ? key_in(first + i) : KEY(0u);
  }
  bool valid[KEYS_PER_LANE];
  uint digits[KEYS_PER_LANE];
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    valid[k] = k * w + lid < count;
    digits[k] = digit_of(keys[k]);
  }
  count_tile_digits(digits, valid);
  barrier();
  for (uint d = lid; d < radix_digits(); d += w) g_counts[pc.counts + d * pc.tiles + tile] = sh_tile_counts[d];
}
