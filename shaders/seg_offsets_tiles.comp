#version 450
// Segmented reduction by offsets, pass 1 of 3 (src/vulkan/segment_offsets.cpp): each tile is read once,
// scanned as (head, value) pairs (common/segmented.glsl) with its segment starts taken from the offsets,
// and every segment that ends in the tile gets its result here -- where it also started in the tile.
// A segment that started in an earlier tile leaves its piece in this tile (everything up to its end) for
// pass 3, which adds what came before it: the inclusive segmented scan of the tiles' totals (pass 2,
// gpuscan's segmented scan over one pair per tile). So the values are read once, and what passes 2 and
// 3 move is a few words per tile.
//
// Segment s covers elements [offsets[s], offsets[s+1]); elements before offsets[0] and from offsets[S]
// on belong to no segment (element 0 and offsets[S] start runs that are never written). An empty
// segment gets the identity from the tile holding its offset (the last tile for offsets at n).
//
// Bindings: 0 the values, 1 the S results, 2 (aux) the tiles' total values from aux_offset and their
// pieces from aux_offset + tiles, 3 unread, 4 the S + 1 offsets (u32, from heads_offset), 5 the tiles'
// heads (u32, from words_offset), the segment of each piece (tiles + tile; NO_PIECE where none) and the
// range of offsets in each tile (2 tiles + 2 tile, 2 tiles + 2 tile + 1: seg_offsets_bounds.comp).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"

#define PASS_PARAMS_EXTRA uint heads_offset; uint heads_before; uint segments; uint words_offset;
#define HEADS_FROM_OFFSETS

const uint NO_PIECE = 0xffffffffu;

uint g_tile_first;
uint offsets_head_at(uint i);

#include "common/segmented.glsl"

// The tile's segment starts as a bitmap over its elements and the one after them (whether the tile's
// last element ends a segment).
shared uint sh_head_bits[gl_WorkGroupSize.x * VECTORS_PER_LANE / 8u + 1u];

layout(binding = 5, std430) buffer TileWords { uint g_tile_words[]; };

// Binding 4 holds the offsets here (segmented.glsl's head words).
uint offset_at(uint s) { return g_heads[pc.heads_offset + s]; }

uint offsets_head_at(uint i) {
  const uint bit = i - g_tile_first;
  return (sh_head_bits[bit / 32u] >> (bit % 32u)) & 1u;
}

#include "common/offset_search.glsl"

shared uint sh_piece_segment;
shared T sh_piece_value;

// One tile, its values loaded (`values`) and its range of offsets [lo, hi). Call from uniform control
// flow.
void process_tile(uint tile, VEC4 values[VECTORS_PER_LANE], uint lo, uint hi) {
  const uint lid = gl_LocalInvocationID.x;
  const uint span = tile_elements();  // the bitmap covers span + 1 positions
  g_tile_first = tile * span;
  if (lid == 0u) sh_piece_segment = NO_PIECE;
  for (uint w = lid; w <= span / 32u; w += gl_WorkGroupSize.x) sh_head_bits[w] = 0u;
  barrier();
  for (uint j = lo + lid; j < hi; j += gl_WorkGroupSize.x) {
    const uint bit = offset_at(j) - g_tile_first;
    if (bit <= span) atomicOr(sh_head_bits[bit / 32u], 1u << (bit % 32u));
  }
  if (tile == 0u && lid == 0u) atomicOr(sh_head_bits[0], 1u);  // element 0 always starts a run
  barrier();

  PairVector rows[VECTORS_PER_LANE];
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const uint e = (tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + tile_vector(k)) * 4u;
    rows[k] = PairVector(uvec4(head_at(e), head_at(e + 1u), head_at(e + 2u), head_at(e + 3u)), values[k]);
  }
  const Pair total = tile_scan_rows(rows, true);

  // Every element that ends a segment: the next one starts a segment, or it is the last element.
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const uint first = (tile * gl_WorkGroupSize.x * VECTORS_PER_LANE + tile_vector(k)) * 4u;
    const Pair before = t_prefix[k];
    const PairVector v = t_values[k];
    for (uint c = 0u; c < 4u; ++c) {
      const uint e = first + c;
      if (e >= g_pass_n) break;
      if (e + 1u < g_pass_n && offsets_head_at(e + 1u) == 0u) continue;
      // The segment holding e: the last s with offsets[s] <= e (lo - 1 where it started before the tile).
      const uint u = offset_bound(e, lo, hi, true);
      if (u == 0u || u > pc.segments) continue;  // before offsets[0], or from offsets[S] on
      const uint s = u - 1u;
      if (offset_at(u) != e + 1u) continue;     // offsets[S] past n: the precondition is broken
      const T value = value_after(before, v.heads[c], v.values[c]);
      if ((before.head | v.heads[c]) != 0u) {
        dst_put(s, value);  // the segment started in this tile: complete
      } else {
        sh_piece_segment = s;  // at most one: the tile's first segment end, with no start before it
        sh_piece_value = value;
      }
    }
  }
  // Empty segments whose offset lies in this tile (the last tile also takes those at n).
  const bool last = tile + 1u == g_pass_blocks;
  const uint empty_end = last ? pc.segments : min(hi, pc.segments);
  for (uint s = lo + lid; s < empty_end; s += gl_WorkGroupSize.x) {
    const uint o = offset_at(s);
    if (o == offset_at(s + 1u) && (last || o < g_tile_first + span)) dst_put(s, op_identity());
  }
  barrier();
  if (lid == 0u) {
    g_aux[pc.aux_offset + tile] = total.value;
    g_tile_words[pc.words_offset + tile] = total.head;
    g_tile_words[pc.words_offset + g_pass_blocks + tile] = sh_piece_segment;
    if (sh_piece_segment != NO_PIECE) g_aux[pc.aux_offset + g_pass_blocks + tile] = sh_piece_value;
  }
}

// A tile other than tile 0 with no offset in [first, first + span] (lo == hi) holds no segment start and
// ends no segment: its pair total is (0, the combination of its values), it has no piece and no empty
// segment. A plain reduction (subgroup arithmetic, then the subgroups' totals in order) gives that total
// without the bitmap, the pair scan or the search for segment ends: almost every tile of long segments.
// Call from uniform control flow (lo and hi are the workgroup's).
void plain_tile(uint tile, VEC4 values[VECTORS_PER_LANE]) {
  T lane = op_identity();
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k)
    for (uint c = 0u; c < 4u; ++c) lane = op_combine(lane, values[k][c]);
#if defined(GPUSCAN_NO_SUBGROUPS)
  const T subgroup_total = lane;
#else
  const T subgroup_total = SUBGROUP_REDUCE(lane);
#endif
  if (SUBGROUP_ELECT()) sh_subgroup_prefix[SUBGROUP_ID] = Pair(0u, subgroup_total);
  subgroup_totals_exclusive_scan();
  if (gl_LocalInvocationID.x == 0u) {
    g_aux[pc.aux_offset + tile] = sh_total.value;
    g_tile_words[pc.words_offset + tile] = 0u;
    g_tile_words[pc.words_offset + g_pass_blocks + tile] = NO_PIECE;
  }
}

// One workgroup per tile. (Workgroups taking tiles in turn, each loading its next tile while it worked on
// the current one, were 9 % slower on the H200: 2^28 u32 in 10^3 segments, W = 256, K = 4, 1.25 ms
// against 1.14.)
void main() {
  pass_begin();
  const uint tile = linear_block_index();
  if (tile >= g_pass_blocks) return;  // the whole workgroup: the barriers in process_tile stay uniform
  VEC4 values[VECTORS_PER_LANE];
  for (uint k = 0u; k < VECTORS_PER_LANE; ++k) values[k] = load_vector(tile, k);  // in flight while marking
  const uint at = pc.words_offset + 2u * g_pass_blocks + 2u * tile;
  const uint lo = g_tile_words[at], hi = g_tile_words[at + 1u];
  if (lo == hi && tile != 0u) plain_tile(tile, values);
  else process_tile(tile, values, lo, hi);
}
