#version 450
// The look-ahead scan (Algorithm::look_ahead; EXPERIMENTAL, chosen by `automatic` only where a tuning
// profile says so, core::choose_scan): one dispatch like the single-pass scan, but only tile TOTALS are
// chained between workgroups, never inclusive prefixes. After the portable part of NVIDIA CCCL's
// "warpspeed" scan.
//
// The grid is G workgroups (the host picks G: core::plan_look_ahead; G <= the number of tiles, one row
// of workgroups), and workgroup g owns tiles g, g + G, g + 2G, ... (static striding, no tile counter).
// For each of its tiles t, in turn, a workgroup
//   1. scans the tile (its loads were issued during the previous tile's look-ahead, see main) and
//      publishes its total at once as AGGREGATE (the tile states, flags
//      and helpers of common/lookback.glsl: read_state, publish_state_words, offer_state, state_all);
//   2. looks ahead -- really sideways: the tiles it needs are those of the other workgroups' current
//      round -- for everything before t:
//        t <  G:  before(t) = carry-in (+) F(total(0), ..., total(t - 1))  (tile 0: the carry-in alone)
//        t >= G:  before(t) = before(t - G) (+) F(total(t - G), total(t - G + 1), ..., total(t - 1))
//      where before(t - G) and total(t - G) are its own from its previous tile, and the other totals are
//      read in parallel, one tile per invocation (look_ahead_window);
//   3. stores the tile with before(t) combined in (tile.glsl's tile_store).
// F is a fixed tree: chunks of W tiles, each reduced by subgroups (SUBGROUP_REDUCE over lanes that hold
// the tiles in order, the identity past the window) and the subgroups' values folded in subgroup order,
// then the chunks folded in order. It depends only on the window's length, W and the device's subgroup
// size (and on the subgroup reduction being the same every time, as the tile scan already assumes),
// never on who computed which total or when, so for one G and tile shape every run gives the same bits
// (floats too), and no ordered variant is needed.
//
// A total not yet published: each invocation polls its tile's state up to SPIN_LIMIT times, then the
// workgroup computes each missing total from the tile's input itself (lookback.glsl's fallback_total:
// tile_total, the same arithmetic as the owner's tile_scan, so the same bits) and offers it with a
// compare-and-swap from 0 on each word (offer_state), so that later readers find it.
//
// Why it is correct. Each tile state is only ever 0 or AGGREGATE, and (tile, AGGREGATE) has exactly one
// value, bit for bit: the tile's total, whether its owner (tile_scan) or a fallback (tile_total) computed
// it. Every word is written whole by one atomic, the owner's stores and the offers' compare-and-swaps
// from 0 can only put that value's half into a word, and a reader takes a state as ready only when all
// its words carry AGGREGATE, so whatever it reads as ready is the total. (WITHHOLD_FIRST_TILE, a
// debugging aid: tile 0's owner stores all but its last word; a fallback's offer fills it.) Relaxed
// device-scope atomics suffice, as lookback.glsl explains: nothing but the states themselves is
// communicated, and before(t - G) never leaves its workgroup. So before(t) is the exact expression above
// whatever the schedule.
//
// Why nothing waits forever, with no forward-progress assumption. A workgroup waits only for totals, and
// only SPIN_LIMIT polls: then it reduces the missing tile's input itself, which it can always read. It
// never waits for another workgroup's look-ahead, prefix or stores, so no schedule -- any workgroup
// descheduled anywhere, or not started until others finish -- can block it. Its barriers are only among
// its own invocations, in uniform control flow (the window's chunk loop and the fallback loop run the
// same counts in every invocation: the counts come from shared memory after a barrier).
//
// In place (src == dst). A fallback reads a tile's input, which its owner overwrites with output: the
// same race as lookback.glsl's "In place", solved the same way with AGGREGATE in the role of PREFIX. The
// owner stores all its AGGREGATE words, then memoryBarrierBuffer() and barrier(), before any invocation
// stores output (main below), so every store of output follows them in every observer's order. The
// fallback's loads have all returned before its memoryBarrierBuffer() and barrier() (fallback_total);
// only then does invocation 0 read the state again, and its total counts only if not every word carries
// AGGREGATE yet -- then no load can have seen output (a seqlock's read side). Otherwise the total is
// dropped and the state's value, now complete, is taken instead. A state with some words AGGREGATE and
// some 0 (a 64-bit owner between its two stores) lets the fallback's total count, and its offer fills the
// missing word. The owner publishes before its look-ahead anyway, so in place costs one fence per tile.
//
// The state is that of the single-pass scan without its ordered block prefixes: a tile counter (unused
// here), a count of finished workgroups and T_WORDS 64-bit words per tile, zero at the start and zeroed
// again by the last workgroup to finish (lookback_finish), so plans may rely on temp staying zero.
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(1, bool, INCLUSIVE, false);
// Output is input: a tile's AGGREGATE must be visible before its stores ("In place" above).
SPEC_CONSTANT(10, bool, IN_PLACE, false);

#include "common/ops.glsl"
#define SCAN_SUBGROUP_SHUFFLES  // as single_pass.comp: owner and fallback share the arithmetic either way
#include "common/pass_io.glsl"
#define TILE_ROW_HALVES_IF_WIDE  // 8-byte elements in two 16-byte halves (common/tile_layout.glsl)
#include "common/tile.glsl"
#include "common/lookback.glsl"

shared T sh_window_value[gl_WorkGroupSize.x];   // one tile's total per invocation of the chunk
shared uint sh_stuck_lane[gl_WorkGroupSize.x];  // the lanes whose total was still missing after polling
shared uint sh_stuck_count;
// Whether the state of the lane about to be reduced was complete after all; two, by k's parity, so that
// invocation 0 never writes the one a slower invocation has yet to read.
shared bool sh_stuck_ready[2];

// F(total(first), ..., total(first + count - 1)) in the fixed tree of the header, with total(first) =
// first_value where known_first (the workgroup's own previous tile). Call from uniform control flow.
T look_ahead_window(uint first, uint count, bool known_first, T first_value) {
  T fold = op_identity();  // the same in every invocation
  for (uint chunk = 0u; chunk < count; chunk += gl_WorkGroupSize.x) {
    const uint i = chunk + gl_LocalInvocationID.x;
    TileState s = TileState(FLAG_AGGREGATE, op_identity());  // past the window: the identity
    if (i < count) {
      if (i == 0u && known_first) {
        s.value = first_value;
      } else {
        s = read_state(first + i);
        for (uint spins = 0u; spins < SPIN_LIMIT && s.flag != FLAG_AGGREGATE; ++spins) s = read_state(first + i);
        // Debugging aid (lookback.glsl's LATE_FALLBACK): the nearest predecessor's published total is
        // computed from its input anyway; in place that input is most likely output by now, which the
        // fallback must notice ("In place" above).
        if (LATE_FALLBACK && i == count - 1u) s.flag = 0u;
      }
    }
    if (gl_LocalInvocationID.x == 0u) sh_stuck_count = 0u;
    barrier();
    sh_window_value[gl_LocalInvocationID.x] = s.value;
    if (s.flag != FLAG_AGGREGATE) sh_stuck_lane[atomicAdd(sh_stuck_count, 1u)] = gl_LocalInvocationID.x;
    barrier();
    // The fallback, one missing total at a time, by the whole workgroup (the list's order does not
    // matter: each total goes to its own lane's slot). When G exceeds what the device runs at once,
    // every resident workgroup misses the same totals (those of workgroups not started yet) in the same
    // round; each begins at its own place in the list and looks at a state again just before reducing
    // its tile, so the resident workgroups mostly share the reductions instead of each doing them all.
    const uint stuck_count = sh_stuck_count;
    for (uint k = 0u; k < stuck_count; ++k) {
      const uint lane = sh_stuck_lane[(k + gl_WorkGroupID.x) % stuck_count];
      const uint stuck = first + chunk + lane;
      if (gl_LocalInvocationID.x == 0u) {
        sh_stuck_ready[k & 1u] = state_all(stuck, FLAG_AGGREGATE);
        if (sh_stuck_ready[k & 1u]) sh_window_value[lane] = read_state(stuck).value;  // complete: the total
      }
      barrier();
      if (sh_stuck_ready[k & 1u]) continue;  // uniform: read from shared memory after the barrier
      const T total = fallback_total(stuck);  // its loads have returned, then a fence and a barrier
      if (gl_LocalInvocationID.x == 0u) {
        if (!state_all(stuck, FLAG_AGGREGATE)) {
          offer_state(stuck, FLAG_AGGREGATE, total);
          sh_window_value[lane] = total;
        } else {  // published meanwhile, and in place its input may be output by now: take the state's
          sh_window_value[lane] = read_state(stuck).value;
        }
      }
      barrier();
    }
    const T value = SUBGROUP_REDUCE(sh_window_value[gl_LocalInvocationID.x]);
    if (subgroupElect()) sh_segment_value[gl_SubgroupID] = value;  // lookback.glsl's, unused otherwise here
    barrier();
    for (uint sg = 0u; sg < gl_NumSubgroups; ++sg) fold = op_combine(fold, sh_segment_value[sg]);
    barrier();  // the shared arrays are read by everyone before the next chunk rewrites them
  }
  return fold;
}

void main() {
  pass_begin();
  const uint grid = gl_NumWorkGroups.x;  // G: one row (core::look_ahead_grid)
  T before = op_identity();              // everything before this workgroup's previous tile
  T total = op_identity();               // ... and that tile's total
  // Bytes in flight: a tile's loads are issued before the previous tile's look-ahead, so they return
  // while it waits on other workgroups' totals (H100, 2^28 u32 exclusive: 1.049 -> 0.991 ms; f32
  // 1.129 -> 1.026 ms; bench/RESULTS.md). The scanned tile sits in t_values meanwhile, so rows is free.
  SCAN_VECTOR rows[VECTORS_PER_LANE];
  if (gl_WorkGroupID.x < g_pass_blocks) tile_load(gl_WorkGroupID.x, rows);
  for (uint tile = gl_WorkGroupID.x; tile < g_pass_blocks; tile += grid) {
    const T own = tile_scan_rows(rows, true);
    if (gl_LocalInvocationID.x == 0u)
      publish_state_words(tile, FLAG_AGGREGATE, own, WITHHOLD_FIRST_TILE && tile == 0u ? T_WORDS - 1u : T_WORDS);
    if (IN_PLACE) {  // every AGGREGATE word visible before any output store ("In place")
      memoryBarrierBuffer();
      barrier();
    }
    // Only this workgroup ever stores to its next tile, so in place its input is still input here.
    if (tile + grid < g_pass_blocks) tile_load(tile + grid, rows);
    if (tile < grid) {
      before = tile == 0u ? pass_initial() : with_initial(look_ahead_window(0u, tile, false, op_identity()));
    } else {
      before = op_combine(before, look_ahead_window(tile - grid, grid, true, total));
    }
    total = own;
    tile_store(tile, before);
  }
  lookback_finish(grid, g_pass_blocks);
}
