// The Onesweep pass's look-back (sort_onesweep.comp): each tile's per-digit counts published to later
// tiles, which add up those of the tiles before them -- decoupled look-back (Merrill & Garland 2016) per
// digit, made safe without forward-progress guarantees by the same decoupled fallback as the single-pass
// scan's (common/lookback.glsl, whose reasoning this follows; Smith, Levien & Owens 2025).
//
// State: one 64-bit word per (tile, digit), flag in bits 32-33, the count in bits 0-31, written and read
// only with relaxed device-scope atomics:
//   0                  not ready (zeroed before every pass)
//   AGGREGATE << 32    the tile's own count of the digit
//   PREFIX << 32       the count of the digit over every tile up to and including this one
// Each (tile, digit, flag) has exactly one possible value, so a word is either 0 or right. A digit's
// look-back walks back from the tile before this one, adding AGGREGATEs, and ends at a PREFIX. A
// predecessor that stays not ready for SPIN_LIMIT polls is never waited on further: the invocation counts
// that tile's keys of the digit itself (the same integer its owner publishes), offers it with a
// compare-and-swap from 0 (for tile 0 as a PREFIX: nothing lies before it), and goes on. Tiles come from
// an atomic counter, so predecessors were started earlier; no schedule can deadlock.
#ifndef GPUSCAN_RADIX_LOOKBACK_GLSL
#define GPUSCAN_RADIX_LOOKBACK_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require

SPEC_CONSTANT(5, uint, SPIN_LIMIT, 1024u);
// Debugging aid (TestHooks::withhold_first_tile): tile 0 publishes nothing, so every digit's look-back
// reaching it counts tile 0's keys in the fallback.
SPEC_CONSTANT(7, bool, WITHHOLD_FIRST_TILE, false);

// Binding 2: the tile counter at word pc.state, the states from word pc.state + 1 ([tile][digit]); the
// scanned global digit counts as u32 at pc.counts (sort_histogram.comp, then record_scan).
layout(binding = 2, std430) coherent buffer Onesweep { uint64_t g_words[]; };

const uint FLAG_AGGREGATE = 1u;
const uint FLAG_PREFIX = 2u;

uint state_index(uint tile, uint d) { return pc.state + 1u + tile * RADIX + d; }

uint64_t load_word(uint i) {
  return atomicLoad(g_words[i], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

void publish_digit(uint tile, uint d, uint flag, uint count) {
  if (WITHHOLD_FIRST_TILE && tile == 0u) return;
  atomicStore(g_words[state_index(tile, d)], (uint64_t(flag) << 32) | uint64_t(count), gl_ScopeDevice,
              gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

uint acquire_sort_tile() {
  return uint(atomicAdd(g_words[pc.state], uint64_t(1), gl_ScopeDevice, gl_StorageSemanticsBuffer,
                        gl_SemanticsRelaxed));
}

// u32 element i of binding 2 (little-endian halves of the 64-bit words).
uint binding_word(uint i) {
  const uint64_t w = g_words[i >> 1u];
  return (i & 1u) != 0u ? uint(w >> 32) : uint(w);
}

// The keys of `tile` with digit d, counted from its input as its owner counts them.
uint count_tile_digit(uint tile, uint d) {
  const uint first = tile * tile_keys();
  const uint count = tile_count(first, sort_count());
  uint c = 0u;
  for (uint i = 0u; i < count; ++i) c += digit_of(key_in(first + i)) == d ? 1u : 0u;
  return c;
}

// Digit d's count over the tiles before `tile`.
uint digit_lookback(uint tile, uint d) {
  uint sum = 0u;
  for (uint pred = tile; pred > 0u;) {
    --pred;
    const uint i = state_index(pred, d);
    uint64_t s = load_word(i);
    for (uint spins = 0u; (s >> 32) == 0u && spins < SPIN_LIMIT; ++spins) s = load_word(i);
    uint flag = uint(s >> 32);
    uint value = uint(s);
    if (flag == 0u) {  // the fallback: count it ourselves and offer it
      value = count_tile_digit(pred, d);
      flag = pred == 0u ? FLAG_PREFIX : FLAG_AGGREGATE;
      atomicCompSwap(g_words[i], uint64_t(0), (uint64_t(flag) << 32) | uint64_t(value), gl_ScopeDevice,
                     gl_StorageSemanticsBuffer, gl_SemanticsRelaxed, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    }
    sum += value;
    if (flag == FLAG_PREFIX) break;
  }
  return sum;
}

#endif
