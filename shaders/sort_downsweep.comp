#version 450
// LSD radix sort, pass part 2 of 2 (src/vulkan/sort.cpp): one tile's keys (and values) ranked stably by
// digit and written to output position scanned[digit · tiles + tile] + (position in the tile - the
// digit's first position in it) (common/radix_scatter.glsl).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/radix_key.glsl"
#include "common/radix_rank.glsl"
#include "common/radix_scatter.glsl"

// The digit counts, digit-major, after their exclusive scan (sort_upsweep.comp).
layout(binding = 2, std430) readonly buffer Counts { uint g_counts[]; };

void main() {
  const uint tile = sort_tile();
  if (tile >= pc.tiles) return;  // the grid's padding: the whole workgroup leaves
  const uint first = tile * tile_keys();
  const uint count = tile_count(first, sort_count());
  if (count == 0u) return;  // past a count from GPU memory: nothing to write
  KEY keys[KEYS_PER_LANE];
  bool valid[KEYS_PER_LANE];
  uint ranks[KEYS_PER_LANE];
  sort_tile_load(first, count, keys, valid, ranks);
  for (uint d = gl_LocalInvocationID.x; d < radix_digits(); d += gl_WorkGroupSize.x)
    sh_digit_base[d] = g_counts[pc.counts + d * pc.tiles + tile] - sh_digit_first[d];
  sort_tile_store(first, count, keys, valid, ranks);
}
