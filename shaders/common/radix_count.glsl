// A tile's digit counts in shared memory, sh_tile_counts[digit] (sort_upsweep.comp, and
// sort_onesweep.comp before it ranks). Needs common/radix_key.glsl. The caller zeroes the counters and
// puts a barrier before and after count_tile_digits.
#ifndef GPUSCAN_RADIX_COUNT_GLSL
#define GPUSCAN_RADIX_COUNT_GLSL

shared uint sh_tile_counts[RADIX];

// Adds this invocation's digits (those whose valid[k] is set) to sh_tile_counts. A run of equal digits
// among them is added with one atomic, which spares the one contended counter of constant or nearly
// constant keys.
void count_tile_digits(uint digits[KEYS_PER_LANE], bool valid[KEYS_PER_LANE]) {
  uint run_digit = 0u, run = 0u;
  UNROLL for (uint k = 0u; k < KEYS_PER_LANE; ++k) {
    if (!valid[k]) continue;
    if (digits[k] != run_digit && run != 0u) {
      atomicAdd(sh_tile_counts[run_digit], run);
      run = 0u;
    }
    run_digit = digits[k];
    ++run;
  }
  if (run != 0u) atomicAdd(sh_tile_counts[run_digit], run);
}

#endif
