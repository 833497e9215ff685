// Binary search over CSR offsets, for the kernels of segments by offsets (seg_offsets_heads,
// seg_offsets_bounds, seg_offsets_tiles). Include after defining `uint offset_at(uint s)`, the kernel's
// read of offsets[s].
#ifndef GPUSCAN_OFFSET_SEARCH_GLSL
#define GPUSCAN_OFFSET_SEARCH_GLSL

// The first s in [lo, hi) with offsets[s] > x (upper) or >= x (lower), or hi. Offsets that are not
// sorted keep it in [lo, hi], so nothing is read out of range.
uint offset_bound(uint x, uint lo, uint hi, bool upper) {
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2u;
    const uint o = offset_at(mid);
    if (upper ? o <= x : o < x) lo = mid + 1u;
    else hi = mid;
  }
  return lo;
}

#endif
