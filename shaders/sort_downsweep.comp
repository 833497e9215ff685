#version 450
// LSD radix sort, pass part 2 of 2 (src/vulkan/sort.cpp): the tiles of one group (sort_upsweep.comp), in
// order, each one's keys (and values) ranked stably by digit and written to output position
// sh_digit_next[digit] + (position in the tile - the digit's first position in it)
// (common/radix_scatter.glsl); sh_digit_next starts at the group's scanned counts and moves past each
// tile's keys of the digit.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/radix_key.glsl"
#include "common/radix_rank.glsl"
#include "common/radix_scatter.glsl"

// The digit counts, digit-major, after their exclusive scan (sort_upsweep.comp).
layout(binding = 2, std430) readonly buffer Counts { uint g_counts[]; };

// Where the group's next key of each digit goes. Invocation lid alone reads and writes digits lid,
// lid + W, ..., so it needs no barrier of its own.
shared uint sh_digit_next[RADIX];

void main() {
  const uint group = sort_tile();
  if (group >= pc.groups) return;  // the grid's padding: the whole workgroup leaves
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint radix = radix_digits();
  for (uint d = lid; d < radix; d += w) sh_digit_next[d] = g_counts[pc.counts + d * pc.groups + group];
  const uint n = sort_count();
  const uint last_tile = min(pc.tiles, (group + 1u) * pc.group_tiles);
  for (uint tile = group * pc.group_tiles; tile < last_tile; ++tile) {
    const uint first = tile * tile_keys();
    const uint count = tile_count(first, n);
    if (count == 0u) break;  // past a count from GPU memory: nothing more to write (uniform)
    KEY keys[KEYS_PER_LANE];
    bool valid[KEYS_PER_LANE];
    uint ranks[KEYS_PER_LANE];
    sort_tile_load(first, count, keys, valid, ranks);  // ends with a barrier: sh_digit_first complete
    for (uint d = lid; d < radix; d += w) {
      const uint start = sh_digit_first[d];
      const uint end = d + 1u < radix ? sh_digit_first[d + 1u] : count;
      sh_digit_base[d] = sh_digit_next[d] - start;
      sh_digit_next[d] += end - start;
    }
    sort_tile_store(first, count, keys, valid, ranks);
    barrier();  // the tile is out of shared memory before the next one is ranked there
  }
}
