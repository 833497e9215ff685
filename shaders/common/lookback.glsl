// Decoupled look-back (Merrill & Garland 2016) made safe without forward-progress guarantees by
// decoupled fallback (Smith, Levien & Owens 2025).
//
// Tile states: T_WORDS 64-bit words per tile (one for 32-bit types, two for 64-bit ones), written and
// read only with atomics. Word h holds a flag in bits 32-33 and the h-th 32-bit half of the value in
// bits 0-31 (no bits taken from the value, so sums are not capped):
//   0                  not ready: the tile has published nothing yet (the state is zero at the start
//                      of every dispatch: see lookback_finish)
//   AGGREGATE << 32    the tile's own total
//   PREFIX << 32       the combination of every element up to and including the tile
// A reader takes a tile's state as ready only when all its words carry the same flag; otherwise the
// tile counts as not ready (flag 0), and the reader polls again or falls back.
//
// Why it is correct. Each (tile, flag) pair has exactly one possible value, bit for bit: a tile's
// AGGREGATE is its tile total, computed with the same arithmetic by tile_scan (the owner) and
// tile_total (a fallback; tile.glsl), so it has the same bits whichever workgroup computes it; its
// PREFIX is stored by its owner alone (tile 0's, also by a fallback, is tile 0's total). Every word is
// written whole by one atomic, so a word that carries flag F carries its half of the value of (tile,
// F), and words that all carry F together make up that value -- whichever stores they came from and in
// whatever order they became visible. (Words with different flags, e.g. one already PREFIX and one
// still AGGREGATE, are simply not ready yet.) Nothing else is communicated between workgroups, so
// relaxed device-scope atomics suffice: atomics on one location are coherent, and each tile's words are
// written only by its owner, except the fallback's compare-and-swap from 0 below. No release/acquire
// ordering with other memory is needed for the state; for 64-bit values this replaces "write the value,
// then publish a flag with release semantics". docs/design.md ("The memory model") is the whole account
// of what these kernels rely on in Vulkan's memory model, and names the one step outside it (in place,
// below). (With `#pragma use_vulkan_memory_model`, Mesa 22.3's lavapipe lost the output stores of
// subgroup 0 even with the look-back removed, so the kernels do without the pragma.)
// Tile indices come from an atomic counter, so a predecessor's tile was taken before ours. A
// waiting workgroup never trusts that a predecessor will run on: after SPIN_LIMIT polls it reduces the
// predecessor's input itself (tile_total(tile): the same arithmetic as the owner's) and goes on
// looking further back, so no schedule can deadlock. It then offers that total to others with a
// compare-and-swap from 0 on each word, which can only fill a still-empty word with the half its owner
// would store (for tile 0 as a PREFIX: nothing lies before it, and an AGGREGATE there would send later
// windows past tile 0). The look-back ends at a PREFIX, which tile 0 stores at once and every tile
// stores before writing its output.
//
// In place (src == dst). The fallback reads a predecessor's input, which its owner overwrites with
// output once it has published its PREFIX: plain accesses that race, the one step outside the memory
// model (docs/design.md, "The memory model", step 5). So a fallback's total counts only if, after the fallback's
// loads have returned, not every word of the predecessor's state carries PREFIX; otherwise it is
// dropped and the look-back polls that predecessor again (the next round reads its PREFIX). Why this
// suffices: the owner stores all its PREFIX words, then memoryBarrierBuffer() and barrier() before any
// invocation stores output (single_pass.comp), so every store of output follows all of the owner's
// PREFIX stores in every observer's order; the fallback's loads have all returned before its
// memoryBarrierBuffer() and barrier(), and only then is the state read again. If any load had seen
// output, that later read sees PREFIX in every word (the read side of a seqlock; stale input from a
// cache is old input, which is what the fallback wants). The check once asked for a state still all 0,
// which is stricter than needed and not live: a 64-bit state whose owner had stored one word of its
// AGGREGATE and was then descheduled stayed "not ready" to every waiter, whose fallbacks were all
// dropped -- on lavapipe until its loop-iteration limit cut the look-back short (wrong prefixes under a
// loaded CPU, `ScanLayoutTest.SinglePassInPlace`). Now such a fallback counts, and its offer
// fills the missing word. Out of place the check costs one atomic load per fallback.
#ifndef GPUSCAN_LOOKBACK_GLSL
#define GPUSCAN_LOOKBACK_GLSL

#include "backend.glsl"

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_ballot : require

// Polls of a not-ready predecessor before computing its total from its input instead.
SPEC_CONSTANT(5, uint, SPIN_LIMIT, 1024u);
// Debugging aid (ContextCreateInfo::debug_withhold_first_tile): tile 0's owner publishes all but the
// last word of its state -- nothing for 4-byte types, the first half for 8-byte ones, as an owner
// descheduled between its two stores leaves it -- so every successor computes tile 0's prefix in the
// fallback, whose offer fills the missing words. Checked where tile 0 publishes (tile_loop.glsl).
SPEC_CONSTANT(7, bool, WITHHOLD_FIRST_TILE, false);
// Debugging aid (ContextCreateInfo::debug_late_fallback): the first time a look-back finds its nearest
// predecessor's PREFIX, it computes that predecessor's total from its input anyway, as if it had been
// stuck -- in place, that input has most likely been overwritten by then: the case the fallback's
// second look at the state must catch. (Not done by waiting in a loop: lavapipe ends every loop of an
// invocation after 65535 iterations in all, LP_MAX_TGSI_LOOP_ITERATIONS, and so cuts long waits short.)
SPEC_CONSTANT(9, bool, LATE_FALLBACK, false);
// Debugging aid (ContextCreateInfo::debug_prefix_stride): only tiles whose index is a multiple of this
// publish their PREFIX (tile_loop.glsl; in the ordered look-back, blocks: lookback_ordered.glsl); the
// others stay at AGGREGATE, so look-backs fold long runs of totals.
SPEC_CONSTANT(12, uint, PREFIX_STRIDE, 1u);

layout(binding = 2, std430) coherent buffer Lookback {
  uint g_tile_counter;  // next tile to hand out
  uint g_done_count;    // workgroups that have finished with the state (lookback_finish)
  uint64_t g_tile_state[];
};

// Tile 0's inclusive prefix from its total. An entry shader with a carry-in defines it before including
// this file (single_pass.comp: the carry-in combined in front); by default the total itself.
#ifndef LOOKBACK_TILE0_PREFIX
#define LOOKBACK_TILE0_PREFIX(total) (total)
#endif

const uint FLAG_AGGREGATE = 1u;
const uint FLAG_PREFIX = 2u;

struct TileState {
  uint flag;  // 0 (not ready), FLAG_AGGREGATE or FLAG_PREFIX
  T value;
};

uint64_t pack_word(uint flag, T value, uint h) { return (uint64_t(flag) << 32) | uint64_t(to_word(value, h)); }

TileState read_state(uint tile) {
  uint flag = 0u;
  uvec2 words = uvec2(0u);
  for (uint h = 0u; h < T_WORDS; ++h) {
    const uint64_t s = atomicLoad(g_tile_state[tile * T_WORDS + h], gl_ScopeDevice, gl_StorageSemanticsBuffer,
                                  gl_SemanticsRelaxed);
    words[h] = uint(s);
    const uint f = uint(s >> 32);
    flag = h == 0u || f == flag ? f : 0u;  // words that disagree: not ready
  }
  return TileState(flag, from_words(words));
}

// Stores the first `words` words of the state (all of them but for the debugging aid above).
void publish_state_words(uint tile, uint flag, T value, uint words) {
  for (uint h = 0u; h < words; ++h)
    atomicStore(g_tile_state[tile * T_WORDS + h], pack_word(flag, value, h), gl_ScopeDevice,
                gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

void publish_state(uint tile, uint flag, T value) { publish_state_words(tile, flag, value, T_WORDS); }

// Whether every word of `tile`'s state carries `flag`.
bool state_all(uint tile, uint flag) {
  bool all = true;
  for (uint h = 0u; h < T_WORDS; ++h)
    all = all && uint(atomicLoad(g_tile_state[tile * T_WORDS + h], gl_ScopeDevice, gl_StorageSemanticsBuffer,
                                 gl_SemanticsRelaxed) >> 32) == flag;
  return all;
}

// Whether every word of `tile`'s state carries PREFIX: only then may its owner have begun to store its
// output ("In place" above).
bool state_all_prefix(uint tile) { return state_all(tile, FLAG_PREFIX); }

// Fills the words of `tile` that are still 0 (the fallback's offer; see the top of this file).
void offer_state(uint tile, uint flag, T value) {
  for (uint h = 0u; h < T_WORDS; ++h)
    atomicCompSwap(g_tile_state[tile * T_WORDS + h], uint64_t(0), pack_word(flag, value, h), gl_ScopeDevice,
                   gl_StorageSemanticsBuffer, gl_SemanticsRelaxed, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

uint acquire_tile_index() {
  return atomicAdd(g_tile_counter, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

const uint LOOKBACK_DONE = 0u;
const uint LOOKBACK_CONTINUE = 1u;
const uint LOOKBACK_FALLBACK = 2u;
const uint LOOKBACK_RESUME = 3u;  // decided by invocation 0 only; continue at a waiting predecessor

// Per subgroup: what its segment of the window holds (see lookback_exclusive_prefix).
shared uint sh_segment_first_prefix[gl_WorkGroupSize.x / 4u + 1u];
shared uint sh_segment_first_waiting[gl_WorkGroupSize.x / 4u + 1u];
shared T sh_segment_value[gl_WorkGroupSize.x / 4u + 1u];

shared uint sh_lookback_action;
shared uint sh_lookback_next;      // newest predecessor not folded yet
shared uint sh_fallback_tile;
shared bool sh_late_fallback_done;
shared T sh_lookback_exclusive;    // everything folded so far: the tiles after sh_lookback_next

// The fallback: the whole workgroup computes `stuck`'s total from its input. Every load of the tile has
// returned (its values are in the total) before invocation 0 looks at the tile's state again; see "In
// place" at the top of this file. Call from uniform control flow.
T fallback_total(uint stuck) {
  const T total = tile_total(stuck);
  memoryBarrierBuffer();
  barrier();
  return total;
}

// The combination of all elements before `tile`. One round inspects a window of one predecessor per
// invocation: subgroup s, lane l looks at tile next - (s * SG + l), so a workgroup of W invocations
// sees W predecessors per round trip to memory and the prefix frontier can advance by W tiles at a
// time. Each subgroup polls its own segment until the lanes that matter are ready (or SPIN_LIMIT
// polls), then invocation 0 walks the segments newest first and decides: done at the first PREFIX,
// fallback at the first predecessor still not ready, or continue with the next window. The whole
// workgroup computes a predecessor's total when one has to be computed from its input.
// Call from uniform control flow.
//
// There is no region where subgroup 0 alone polls while the others wait: in that shape, Mesa 22.3's
// lavapipe now and then dropped all output stores of subgroup 0 of a workgroup that had taken the
// fallback.
T lookback_exclusive_prefix(uint tile) {
  if (tile == 0u) return op_identity();
  if (gl_LocalInvocationID.x == 0u) {
    sh_lookback_next = tile - 1u;
    sh_lookback_exclusive = op_identity();
    sh_late_fallback_done = false;
  }
  barrier();
  for (;;) {
    const uint next = sh_lookback_next;
    const uint offset = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;  // lane's distance - 1
    // Lanes past tile 0 see an identity prefix, so every window ends at a PREFIX eventually.
    const bool real = offset <= next;
    TileState s = real ? read_state(next - offset) : TileState(FLAG_PREFIX, op_identity());
    uint first_prefix = gl_SubgroupSize, first_waiting = 0u;
    // Poll until every lane up to the segment's first PREFIX is ready, SPIN_LIMIT times at most. Only
    // subgroup 0, whose segment holds the nearest predecessors, polls more than once: the others read
    // once, and a predecessor still waiting there starts the next round's window instead (many
    // subgroups spinning on the same words multiplied the L2 traffic of the look-back).
    const uint spin_limit = gl_SubgroupID == 0u ? SPIN_LIMIT : 0u;
    for (uint spins = 0u; spins <= spin_limit && first_waiting < first_prefix; ++spins) {
      if (spins > 0u && s.flag == 0u) s = read_state(next - offset);
      const uvec4 prefixes = subgroupBallot(s.flag == FLAG_PREFIX);
      const uvec4 waiting = subgroupBallot(s.flag == 0u);
      first_prefix = subgroupBallotBitCount(prefixes) > 0u ? subgroupBallotFindLSB(prefixes) : gl_SubgroupSize;
      first_waiting = subgroupBallotBitCount(waiting) > 0u ? subgroupBallotFindLSB(waiting) : gl_SubgroupSize;
    }
    // This segment's ready lanes in front of its first waiting one, up to and including its first PREFIX.
    const uint folded = min(first_waiting, first_prefix + 1u);
    const T value = SUBGROUP_REDUCE(gl_SubgroupInvocationID < folded ? s.value : op_identity());
    if (subgroupElect()) {
      sh_segment_first_prefix[gl_SubgroupID] = first_prefix;
      sh_segment_first_waiting[gl_SubgroupID] = first_waiting;
      sh_segment_value[gl_SubgroupID] = value;  // every operator so far is commutative
    }
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
      T exclusive = sh_lookback_exclusive;
      uint action = LOOKBACK_CONTINUE;
      uint resume = next - gl_NumSubgroups * gl_SubgroupSize;  // next round's newest predecessor
      for (uint seg = 0u; seg < gl_NumSubgroups && action == LOOKBACK_CONTINUE; ++seg) {
        const uint p = sh_segment_first_prefix[seg];
        const uint w = sh_segment_first_waiting[seg];
        if (LATE_FALLBACK && seg == 0u && p == 0u && !sh_late_fallback_done) {  // debugging aid
          action = LOOKBACK_FALLBACK;
          sh_fallback_tile = next;
          sh_late_fallback_done = true;
          continue;  // `next` is not folded: the fallback computes it
        }
        exclusive = op_combine(sh_segment_value[seg], exclusive);  // older segments go to the left
        if (p < w) {
          action = LOOKBACK_DONE;
        } else if (w < gl_SubgroupSize) {
          const uint waiting_tile = next - (seg * gl_SubgroupSize + w);
          if (seg == 0u) {  // polled SPIN_LIMIT times: take its total from its input
            action = LOOKBACK_FALLBACK;
            sh_fallback_tile = waiting_tile;
          } else {          // read once only: poll it properly in the next round
            action = LOOKBACK_RESUME;
            resume = waiting_tile;
          }
        }
      }
      if (action == LOOKBACK_RESUME) action = LOOKBACK_CONTINUE;
      if (action == LOOKBACK_CONTINUE) sh_lookback_next = resume;
      sh_lookback_exclusive = exclusive;
      sh_lookback_action = action;
    }
    barrier();
    const uint action = sh_lookback_action;
    if (action == LOOKBACK_DONE) break;
    if (action == LOOKBACK_FALLBACK) {
      const uint stuck = sh_fallback_tile;
      const T total = fallback_total(stuck);
      if (gl_LocalInvocationID.x == 0u) {
        if (!state_all_prefix(stuck)) {
          // Tile 0's total (with the carry-in, if any) is its inclusive prefix; marking it AGGREGATE
          // would let a later window run past tile 0 looking for a PREFIX.
          const uint flag = stuck == 0u ? FLAG_PREFIX : FLAG_AGGREGATE;
          const T value = stuck == 0u ? LOOKBACK_TILE0_PREFIX(total) : total;
          offer_state(stuck, flag, value);
          sh_lookback_exclusive = op_combine(value, sh_lookback_exclusive);
          sh_lookback_action = stuck == 0u ? LOOKBACK_DONE : LOOKBACK_CONTINUE;
          sh_lookback_next = stuck - 1u;
        } else {  // it published its PREFIX meanwhile (and may have overwritten its input): use that
          sh_lookback_action = LOOKBACK_CONTINUE;
          sh_lookback_next = stuck;
        }
      }
      barrier();
      if (sh_lookback_action == LOOKBACK_DONE) break;
    }
  }
  const T result = sh_lookback_exclusive;
  barrier();  // the look-back's shared state is read by everyone before anyone reuses it
  return result;
}

#ifdef LOOKBACK_ORDERED
#include "lookback_ordered.glsl"
// Tile states, then room for a block prefix per tile (core::single_pass_scan_state_bytes).
#define LOOKBACK_SLOTS(tiles) (2u * (tiles))
#else
#define LOOKBACK_SLOTS(tiles) (tiles)
#endif

shared bool sh_last_workgroup;

// Every workgroup calls this once, from uniform control flow, after its last access to the state. The
// workgroup that finishes last zeroes the whole state -- tile counter, done count and every tile's
// word -- so the next single-pass scan with this temp needs no clearing pass (ScanArgs::temp_zeroed).
// Everything other workgroups do with the state happens-before the zeroing: their accesses, then
// memoryBarrierBuffer() and barrier() (a release fence for the whole workgroup) before the increment of
// the done count; the increments form one release sequence, and the workgroup that reads the last count
// takes an acquire fence (memoryBarrierBuffer() in invocation 0, then barrier()) before any of its
// invocations stores a zero. Only that one workgroup pays for the acquire: with an acquire-release
// increment in every workgroup, single-pass scans and compactions ran 7-14 % slower on the H200 (u32
// exclusive 2^28: 0.717 -> 0.784 ms).
void lookback_finish(uint workgroups, uint tiles) {
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    const uint done = atomicAdd(g_done_count, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    sh_last_workgroup = done == workgroups - 1u;
    if (sh_last_workgroup) memoryBarrierBuffer();
  }
  barrier();
  if (!sh_last_workgroup) return;
  for (uint i = gl_LocalInvocationID.x; i < LOOKBACK_SLOTS(tiles) * T_WORDS; i += gl_WorkGroupSize.x)
    atomicStore(g_tile_state[i], uint64_t(0), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  if (gl_LocalInvocationID.x == 0u) {
    atomicStore(g_tile_counter, 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    atomicStore(g_done_count, 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  }
}

#endif
