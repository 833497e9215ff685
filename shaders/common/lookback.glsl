// Decoupled look-back (Merrill & Garland 2016) made safe without forward-progress guarantees by
// decoupled fallback (Smith, Levien & Owens 2025).
//
// Tile states: one 64-bit word per tile, written and read only with atomics: the flag in bits 32-33
// and the full 32-bit value (no bits taken from it, so sums are not capped) in bits 0-31.
//   0                  not ready: the tile has published nothing yet (the state buffer is zeroed first)
//   AGGREGATE << 32    the tile's own total
//   PREFIX << 32       the combination of every element up to and including the tile
//
// Why it is correct. Flag and value travel in one atomic word, so a reader that sees a flag sees the
// value stored with it; nothing else is communicated between workgroups, so relaxed device-scope
// atomics suffice: atomics on one location are coherent, and each tile's word is written only by its
// owner, except the fallback's compare-and-swap below. No release/acquire ordering with other memory
// is needed, hence no Vulkan memory model either. (With `#pragma use_vulkan_memory_model`, Mesa 22.3's
// lavapipe lost the output stores of subgroup 0 even with the look-back removed; not pursued.) Tile indices
// come from an atomic counter in the order workgroups start, so every predecessor has started. A
// waiting workgroup never trusts that a predecessor will run on: after SPIN_LIMIT polls it reduces the
// predecessor's input itself (tile_scan(tile, false): the same arithmetic as the owner's) and goes on
// looking further back, so no schedule can deadlock. It then offers that total to others with a
// compare-and-swap from 0, which can only fill a still-empty word with the value its owner would
// store. The look-back ends at a PREFIX, which tile 0 stores at once and every tile stores before
// writing its output; the fallback re-reads predecessors' input, so src and dst must not alias.
#ifndef GPUSCAN_LOOKBACK_GLSL
#define GPUSCAN_LOOKBACK_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_ballot : require

// Polls of a not-ready predecessor before computing its total from its input instead.
layout(constant_id = 5) const uint SPIN_LIMIT = 64u;

layout(set = 0, binding = 2, std430) coherent buffer Lookback {
  uint g_tile_counter;  // next tile to hand out
  uint g_fallback_count;  // diagnostics: how many times a workgroup reduced a predecessor itself
  uint64_t g_tile_state[];
};

const uint FLAG_AGGREGATE = 1u;
const uint FLAG_PREFIX = 2u;

uint64_t pack_state(uint flag, T value) { return (uint64_t(flag) << 32) | uint64_t(to_bits(value)); }
uint state_flag(uint64_t s) { return uint(s >> 32); }
T state_value(uint64_t s) { return from_bits(uint(s)); }

uint64_t read_state(uint tile) {
  return atomicLoad(g_tile_state[tile], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

void publish_state(uint tile, uint flag, T value) {
  atomicStore(g_tile_state[tile], pack_state(flag, value), gl_ScopeDevice, gl_StorageSemanticsBuffer,
              gl_SemanticsRelaxed);
}

uint acquire_tile_index() {
  return atomicAdd(g_tile_counter, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

const uint LOOKBACK_DONE = 0u;
const uint LOOKBACK_CONTINUE = 1u;
const uint LOOKBACK_FALLBACK = 2u;

shared uint sh_lookback_action;
shared uint sh_lookback_next;      // newest predecessor not folded yet
shared uint sh_fallback_tile;
shared T sh_lookback_exclusive;    // everything folded so far: the tiles after sh_lookback_next

// The combination of all elements before `tile`. Every subgroup inspects the same window of one
// predecessor per lane (lane l looks at tile next - l) and reaches the same decision; subgroup 0
// records it. The whole workgroup computes a predecessor's total when one has to be computed from its
// input. Call from uniform control flow.
//
// Why every subgroup polls, not subgroup 0 alone while the others wait at a barrier: with the window
// inside `if (gl_SubgroupID == 0)`, Mesa 22.3's lavapipe now and then dropped all output stores of
// subgroup 0 of a workgroup that had taken the fallback (seen as one subgroup's worth of untouched
// output, more often the lower SPIN_LIMIT was). Redundant polling costs a few L2 reads.
T lookback_exclusive_prefix(uint tile) {
  if (tile == 0u) return op_identity();
  if (gl_LocalInvocationID.x == 0u) {
    sh_lookback_next = tile - 1u;
    sh_lookback_exclusive = op_identity();
  }
  barrier();
  for (;;) {
    {  // every subgroup, see above
      const uint lane = gl_SubgroupInvocationID;
      const uint next = sh_lookback_next;
      // Lanes past tile 0 see an identity prefix, so every window ends at a PREFIX eventually.
      const bool real = lane <= next;
      uint64_t s = real ? read_state(next - lane) : pack_state(FLAG_PREFIX, op_identity());
      uint first_prefix = gl_SubgroupSize, first_waiting = 0u;
      // Poll until every lane up to the first PREFIX is ready, SPIN_LIMIT times at most.
      for (uint spins = 0u; spins <= SPIN_LIMIT && first_waiting < first_prefix; ++spins) {
        if (spins > 0u && state_flag(s) == 0u) s = read_state(next - lane);
        const uvec4 prefixes = subgroupBallot(state_flag(s) == FLAG_PREFIX);
        const uvec4 waiting = subgroupBallot(state_flag(s) == 0u);
        first_prefix = subgroupBallotBitCount(prefixes) > 0u ? subgroupBallotFindLSB(prefixes) : gl_SubgroupSize;
        first_waiting = subgroupBallotBitCount(waiting) > 0u ? subgroupBallotFindLSB(waiting) : gl_SubgroupSize;
      }
      // Fold the ready lanes in front of the first waiting one, up to and including the first PREFIX.
      const uint folded = min(first_waiting, first_prefix + 1u);
      const T mine = lane < folded ? state_value(s) : op_identity();
      const T window = SUBGROUP_REDUCE(mine);  // add is commutative; ordered operators come later
      barrier();  // everyone has read sh_lookback_next and sh_lookback_exclusive
      if (subgroupElect() && gl_SubgroupID == 0u) {
        sh_lookback_exclusive = op_combine(window, sh_lookback_exclusive);
        if (first_prefix < first_waiting) {
          sh_lookback_action = LOOKBACK_DONE;
        } else if (first_waiting < gl_SubgroupSize) {
          sh_lookback_action = LOOKBACK_FALLBACK;
          sh_fallback_tile = next - first_waiting;
        } else {
          sh_lookback_action = LOOKBACK_CONTINUE;
          sh_lookback_next = next - gl_SubgroupSize;
        }
      }
    }
    barrier();
    const uint action = sh_lookback_action;
    if (action == LOOKBACK_DONE) break;
    if (action == LOOKBACK_FALLBACK) {
      const uint stuck = sh_fallback_tile;
      const T total = tile_scan(stuck, false);
      if (gl_LocalInvocationID.x == 0u) {
        // Tile 0's total is its inclusive prefix; marking it AGGREGATE would let a later window run
        // past tile 0 looking for a PREFIX.
        const uint flag = stuck == 0u ? FLAG_PREFIX : FLAG_AGGREGATE;
        atomicCompSwap(g_tile_state[stuck], uint64_t(0), pack_state(flag, total), gl_ScopeDevice,
                       gl_StorageSemanticsBuffer, gl_SemanticsRelaxed, gl_StorageSemanticsBuffer,
                       gl_SemanticsRelaxed);
        atomicAdd(g_fallback_count, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        sh_lookback_exclusive = op_combine(total, sh_lookback_exclusive);
        sh_lookback_action = stuck == 0u ? LOOKBACK_DONE : LOOKBACK_CONTINUE;
        sh_lookback_next = stuck - 1u;
      }
      barrier();
      if (sh_lookback_action == LOOKBACK_DONE) break;
    }
  }
  const T result = sh_lookback_exclusive;
  barrier();  // the look-back's shared state is read by everyone before anyone reuses it
  return result;
}

#endif
