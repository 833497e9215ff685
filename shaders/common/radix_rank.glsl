// Stable ranking of one tile of the LSD radix sort by digit (sort_downsweep.comp): each key's position in
// its tile ordered by digit, ties in tile order. Needs common/radix_key.glsl.
//
// Subgroup s owns the tile's keys [s·S·K, (s+1)·S·K) (S = gl_SubgroupSize), in K rows of S consecutive
// keys, lane l the l-th key of each row, so a row's loads are coalesced and key order is (subgroup, row,
// lane). In a row, one ballot per digit bit finds the lanes holding the same digit (uvec4 ballots: any
// subgroup size from 4 to 128); the lanes before this one among them give its rank in the row, and one of
// them adds the row's count to the subgroup's own counter for the digit. Every subgroup counts in its own
// row of shared counters, so no atomics and no order between subgroups is needed. An exclusive scan of
// the counters in (digit, subgroup) order then turns the ranks into positions in the tile.
//
// Measured on the H200 (2^28 u32 keys, the scatter pass: 2.97 ms) and not kept: one subgroupPartitionNV per
// row instead of the ballots (no faster); every row's ballots before the counter chain, a two-barrier
// chunked scan of the digit totals instead of Hillis-Steele, shared-only subgroup barriers and the digit
// offsets loaded before the ranking, together (3.16 ms).
//
// Every loop over a lane's K keys is unrolled (UNROLL, here and in radix_scatter.glsl and sort_upsweep.comp):
// K is a specialization constant, and without the hint NVIDIA's compiler kept 96 bytes of the per-lane
// arrays in local memory (H100, driver 580.159.04; pipeline statistics). Unrolled there is none, and 2^24
// u32 pairs sort in 1.409 ms against 1.558, keys in 1.051 against 1.090 (the same call).
//
// With GPUSCAN_NO_SUBGROUPS (the .no_subgroups build for GL drivers without GL_KHR_shader_subgroup, such as
// llvmpipe's) the tile is sorted stably in shared memory instead (rank_tile below): the same ranks, as a
// tile has only one stable order by digit, and the same sh_digit_first.
#ifndef GPUSCAN_RADIX_RANK_GLSL
#define GPUSCAN_RADIX_RANK_GLSL

#if !defined(GPUSCAN_NO_SUBGROUPS)
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif

// Rows of counters: W / the device's narrowest subgroup (a workgroup has at most that many subgroups).
SPEC_CONSTANT(15, uint, SORT_ROWS, 16u);
// Words of sh_sort: the counters (SORT_ROWS · RADIX), or later the staged tile (W·K keys or values of
// up to 2 words each), whichever is larger (src/core/sort_plan.cpp computes it).
SPEC_CONSTANT(16, uint, SORT_SHARED_WORDS, 4096u);

shared uint sh_sort[SORT_SHARED_WORDS];
shared uint sh_digit_first[RADIX];  // the tile's first sorted position of each digit
shared uint sh_digit_scan[RADIX];   // the other half of the digit scan's ping-pong

#if defined(GPUSCAN_NO_SUBGROUPS)
#include "common/workgroup_sum.glsl"

// Invocation i holds the tile's keys [i·K, (i+1)·K).
uint rank_position(uint k) { return gl_LocalInvocationID.x * KEYS_PER_LANE + k; }

#else

// The tile position of this invocation's key in row k.
uint rank_position(uint k) {
  return (gl_SubgroupID * KEYS_PER_LANE + k) * gl_SubgroupSize + gl_SubgroupInvocationID;
}

// The lanes of this subgroup holding a key with digit d (none of the lanes without a key).
uvec4 digit_peers(uint d, bool valid) {
  uvec4 peers = subgroupBallot(valid);
  for (uint b = 0u; b < pc.bits; ++b) {
    const bool set = ((d >> b) & 1u) != 0u;
    const uvec4 lanes = subgroupBallot(set);
    peers &= set ? lanes : ~lanes;
  }
  return peers;
}

#endif

// sh_digit_first[0, radix) from digit totals to their exclusive prefix (Hillis-Steele, radix <= 256).
void scan_digit_totals(uint radix) {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  for (uint stride = 1u; stride < radix; stride *= 2u) {
    for (uint d = lid; d < radix; d += w)
      sh_digit_scan[d] = sh_digit_first[d] + (d >= stride ? sh_digit_first[d - stride] : 0u);
    barrier();
    for (uint d = lid; d < radix; d += w) sh_digit_first[d] = sh_digit_scan[d];
    barrier();
  }
  for (uint d = lid; d < radix; d += w) sh_digit_scan[d] = d == 0u ? 0u : sh_digit_first[d - 1u];
  barrier();
  for (uint d = lid; d < radix; d += w) sh_digit_first[d] = sh_digit_scan[d];
  barrier();
}

#if defined(GPUSCAN_NO_SUBGROUPS)

// ranks[k] <- the tile position, in digit order, of this invocation's key k (where valid[k]); as the
// ballot ranking's, ends with a barrier, sh_sort free and sh_digit_first each digit's first position.
// The tile is sorted stably in sh_sort by one 1-bit split per digit bit, lowest first (so by the whole
// digit, as an LSD sort): each split's keys with the bit clear go first, at the workgroup's exclusive
// sum of such keys before them, the others after all of those. An entry is digit << 16 | its tile
// position (a tile has at most 2^16 keys: the host keeps W·K there); the positions past the tile's keys
// take the largest digit, so they stay behind every key and the keys' ranks are those without them.
// pc.bits splits of 2·log2(W) + 1 barriers each: cheap enough for the CPU drivers that lack subgroups.
void rank_tile(uint digits[KEYS_PER_LANE], bool valid[KEYS_PER_LANE], out uint ranks[KEYS_PER_LANE]) {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint radix = radix_digits();
  for (uint d = lid; d < radix; d += w) sh_digit_first[d] = 0u;
  barrier();
  uint entries[KEYS_PER_LANE];
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    if (valid[k]) atomicAdd(sh_digit_first[digits[k]], 1u);  // the totals: their order does not matter
    entries[k] = ((valid[k] ? digits[k] : 0xFFu) << 16) | rank_position(k);
  }
  for (uint b = 16u; b < 16u + pc.bits; ++b) {
    uint clear = 0u;
    UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) clear += ((entries[k] >> b) & 1u) ^ 1u;
    uint all_clear;
    uint before = workgroup_exclusive_sum(clear, all_clear);  // begins and ends with barriers
    UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
      if (((entries[k] >> b) & 1u) == 0u) {
        sh_sort[before] = entries[k];
        ++before;
      } else {  // after every clear key, behind the set ones before it (rank_position(k) - before of them)
        sh_sort[all_clear + rank_position(k) - before] = entries[k];
      }
    }
    barrier();
    UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) entries[k] = sh_sort[rank_position(k)];
  }
  barrier();  // every entry read before sh_sort maps tile positions to sorted ones
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) sh_sort[entries[k] & 0xFFFFu] = rank_position(k);
  barrier();
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) ranks[k] = sh_sort[rank_position(k)];
  scan_digit_totals(radix);  // begins after the barrier above that followed the atomics; ends with one
}

#else

// ranks[k] <- the tile position, in digit order, of this invocation's key in row k (where valid[k]).
// Ends with a barrier: sh_sort is free again, sh_digit_first holds each digit's first position.
void rank_tile(uint digits[KEYS_PER_LANE], bool valid[KEYS_PER_LANE], out uint ranks[KEYS_PER_LANE]) {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint radix = radix_digits();
  for (uint i = lid; i < gl_NumSubgroups * RADIX; i += w) sh_sort[i] = 0u;
  barrier();
  const uint row = gl_SubgroupID * RADIX;
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    const uvec4 peers = digit_peers(digits[k], valid[k]);
    const uint before = subgroupBallotExclusiveBitCount(peers);
    const uint counted = valid[k] ? sh_sort[row + digits[k]] : 0u;
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // every lane has read the counter before one of them moves it on
    if (valid[k] && before == 0u) sh_sort[row + digits[k]] = counted + subgroupBallotBitCount(peers);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    ranks[k] = counted + before;
  }
  barrier();
  // Each digit's counters to their exclusive prefix over the subgroups; the totals to sh_digit_first.
  for (uint d = lid; d < radix; d += w) {
    uint sum = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) {
      const uint c = sh_sort[s * RADIX + d];
      sh_sort[s * RADIX + d] = sum;
      sum += c;
    }
    sh_digit_first[d] = sum;
  }
  barrier();
  scan_digit_totals(radix);
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k)
    if (valid[k]) ranks[k] += sh_digit_first[digits[k]] + sh_sort[row + digits[k]];
  barrier();
}

#endif  // GPUSCAN_NO_SUBGROUPS

#endif
