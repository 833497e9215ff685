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
#ifndef GPUSCAN_RADIX_RANK_GLSL
#define GPUSCAN_RADIX_RANK_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

// Rows of counters: W / the device's narrowest subgroup (a workgroup has at most that many subgroups).
SPEC_CONSTANT(15, uint, SORT_ROWS, 16u);
// Words of sh_sort: the counters (SORT_ROWS · RADIX), or later the staged tile (W·K keys or values of
// up to 2 words each), whichever is larger (src/vulkan/sort.cpp computes it).
SPEC_CONSTANT(16, uint, SORT_SHARED_WORDS, 4096u);

shared uint sh_sort[SORT_SHARED_WORDS];
shared uint sh_digit_first[RADIX];  // the tile's first sorted position of each digit
shared uint sh_digit_scan[RADIX];   // the other half of the digit scan's ping-pong

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

// ranks[k] <- the tile position, in digit order, of this invocation's key in row k (where valid[k]).
// Ends with a barrier: sh_sort is free again, sh_digit_first holds each digit's first position.
void rank_tile(uint digits[KEYS_PER_LANE], bool valid[KEYS_PER_LANE], out uint ranks[KEYS_PER_LANE]) {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint radix = radix_digits();
  for (uint i = lid; i < gl_NumSubgroups * RADIX; i += w) sh_sort[i] = 0u;
  barrier();
  const uint row = gl_SubgroupID * RADIX;
  for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
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
  for (uint k = 0u; k < KEYS_PER_LANE; ++k)
    if (valid[k]) ranks[k] += sh_digit_first[digits[k]] + sh_sort[row + digits[k]];
  barrier();
}

#endif
