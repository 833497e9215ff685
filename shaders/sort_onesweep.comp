#version 450
// LSD radix sort, Onesweep pass (src/vulkan/sort.cpp, SortAlgorithm::onesweep; Adinets & Merrill 2022):
// one dispatch per digit. Each tile counts its digits and publishes the counts, ranks its keys
// (common/radix_rank.glsl), adds up the counts of the tiles before it (common/radix_lookback.glsl, with
// the fallback that needs no forward progress), and writes its keys to the digit's global offset
// (sort_histogram.comp, scanned) + the earlier tiles' count of the digit + the key's rank among the
// tile's keys of that digit.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/radix_key.glsl"
#include "common/radix_rank.glsl"
#include "common/radix_scatter.glsl"
#include "common/radix_lookback.glsl"
#include "common/radix_count.glsl"

shared uint sh_tile;

void main() {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  if (lid == 0u) sh_tile = acquire_sort_tile();
  barrier();
  const uint tile = sh_tile;
  if (tile >= pc.tiles) return;  // surplus workgroups of the grid: the whole workgroup leaves
  const uint n = sort_count();
  const uint first = tile * tile_keys();
  const uint count = tile_count(first, n);
  // Past a count from GPU memory: nothing to publish, as no look-back reaches a tile after the last
  // non-empty one (look-backs only go to earlier tiles).
  if (count == 0u) return;
  KEY keys[KEYS_PER_LANE];
  bool valid[KEYS_PER_LANE];
  uint digits[KEYS_PER_LANE];
  uint ranks[KEYS_PER_LANE];
  sort_tile_keys(first, count, keys, valid, digits);
  const uint radix = radix_digits();
  // The tile's digit counts, published before the ranking: later tiles look back while this one ranks,
  // and by the time it looks back itself its predecessors have mostly published their prefixes, so its
  // look-back is short.
  for (uint d = lid; d < radix; d += w) sh_tile_counts[d] = 0u;
  barrier();
  count_tile_digits(digits, valid);
  barrier();
  for (uint d = lid; d < radix; d += w)
    publish_digit(tile, d, tile == 0u ? FLAG_PREFIX : FLAG_AGGREGATE, sh_tile_counts[d]);
  rank_tile(digits, valid, ranks);  // leaves sh_tile_counts as it is
  for (uint d = lid; d < radix; d += w) {
    const uint before = tile == 0u ? 0u : digit_lookback(tile, d);
    if (tile != 0u) publish_digit(tile, d, FLAG_PREFIX, before + sh_tile_counts[d]);
    const uint global = binding_word(pc.counts + d) - pc.pass * n;
    sh_digit_base[d] = global + before - sh_digit_first[d];
  }
  sort_tile_store(first, count, keys, valid, ranks);
}
