// The workgroup loop of the single-pass scan (single_pass.comp): take tiles from the atomic counter,
// publish each tile's total, look back, publish its PREFIX and write it. Written against three hooks so
// that other look-back kernels share it: the single-pass compaction (compact_single_pass.comp) holds its
// tile in shared memory instead of registers. (A trial of the compaction on this loop, with its tile
// held in registers, failed on NVIDIA; the staged kernel passes there: bench/RESULTS.md.)
//
// A workgroup takes up to TILES_PER_WORKGROUP tiles in turn. Holding a scanned tile, it takes the next
// index, loads and scans that tile and publishes its total, and only then looks back for the held tile
// and writes it: by then the held tile's predecessors have had a whole tile's loads to publish, so the
// look-back rarely waits, and the workgroup's wait is its next tile's loads instead of an idle spin
// (13-23 % faster at 2^22-2^28 u32 on the H200, bench/RESULTS.md). The next index is taken
// only when that tile is about to be loaded: taken earlier, a tile taken but not loaded holds up every
// successor that looks back at it (measured slower). The grid keeps one workgroup per tile; those
// that find every tile taken leave at once. The host caps the count on lavapipe, whose loop-iteration
// limit each tile's polls count against (Context::Impl::max_tiles_per_workgroup).
//
// The including shader defines, before including this file (after common/lookback.glsl):
//   T    loop_scan(uint tile)                  loads and scans a tile into its working registers; its total
//   void loop_hold()                           copies the working registers to the held tile's
//   void loop_store_held(uint tile, T before, T total)   writes the held tile, `before` everything in front
// and may define LOOP_TILE0_BEFORE, what lies before tile 0 (default: the identity).
#ifndef GPUSCAN_TILE_LOOP_GLSL
#define GPUSCAN_TILE_LOOP_GLSL

SPEC_CONSTANT(11, uint, TILES_PER_WORKGROUP, 1u);

#ifndef LOOP_TILE0_BEFORE
#define LOOP_TILE0_BEFORE op_identity()
#endif

shared uint sh_loop_tile[2];  // alternate slots: a slot is rewritten only after barriers past its read

uint loop_take_tile(uint slot) {
  if (gl_LocalInvocationID.x == 0u) sh_loop_tile[slot] = acquire_tile_index();
  barrier();
  return sh_loop_tile[slot];  // uniform: every invocation reads the same index
}

void loop_publish_total(uint tile, T total) {
  if (gl_LocalInvocationID.x != 0u) return;
#ifdef LOOKBACK_ORDERED
  // Ordered, tile 0 is a tile like the others (lookback_ordered.glsl).
  publish_state_words(tile, FLAG_AGGREGATE, total, WITHHOLD_FIRST_TILE && tile == 0u ? T_WORDS - 1u : T_WORDS);
#else
  if (tile != 0u) publish_state(tile, FLAG_AGGREGATE, total);
  else publish_state_words(tile, FLAG_PREFIX, LOOKBACK_TILE0_PREFIX(total), WITHHOLD_FIRST_TILE ? T_WORDS - 1u : T_WORDS);
#endif
}

// Processes this workgroup's tiles of the `tiles` in the dispatch. Call from uniform control flow.
void tile_loop(uint tiles) {
  uint tile = loop_take_tile(0u);
  if (tile >= tiles) return;  // the grid may be rounded up, and other workgroups may have taken the rest
  T total = loop_scan(tile);
  loop_publish_total(tile, total);
  for (uint taken = 1u;; ++taken) {
    loop_hold();
    const uint next = taken < TILES_PER_WORKGROUP ? loop_take_tile(taken & 1u) : tiles;
    T next_total = op_identity();
    if (next < tiles) {
      next_total = loop_scan(next);
      loop_publish_total(next, next_total);
    }
#ifdef LOOKBACK_ORDERED
    const T before = lookback_ordered_prefix(tile, total);
    if (gl_LocalInvocationID.x == 0u) lookback_ordered_publish(tile, total);
#else
    const T before = tile == 0u ? LOOP_TILE0_BEFORE : lookback_exclusive_prefix(tile);
    if (gl_LocalInvocationID.x == 0u && tile != 0u && tile % PREFIX_STRIDE == 0u)
      publish_state(tile, FLAG_PREFIX, op_combine(before, total));
#endif
    loop_store_held(tile, before, total);
    if (next >= tiles) break;
    tile = next;
    total = next_total;
  }
}

#endif
