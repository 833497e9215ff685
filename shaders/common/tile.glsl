// The tile scan of the tile-based algorithms (reduce-then-scan and single-pass), over the layout of
// tile_layout.glsl: each row of vectors is scanned by its subgroup and rows carry into the next, so
// the scan order is the element order.
//
// tile_scan(tile, keep) loads a tile and leaves, for every vector this invocation owns, its values
// scanned inside the vector (t_values) and the combination of all tile elements before it (t_prefix);
// it returns the tile total. With keep = false it only computes the total -- with the very same
// arithmetic, so a tile's total is bitwise the same whichever workgroup computes it (the look-back's
// fallback relies on that). tile_load and tile_scan_rows are its two halves, for callers that issue
// a tile's loads early.
//
// Every loop over a lane's K vectors but tile_total's is unrolled (UNROLL): K is a specialization
// constant, and without the hint NVIDIA's compiler left the float min and max kernels' loops rolled and
// their per-lane arrays in local memory (H100, driver 580.159.04, W = 256, K = 4: 224 bytes in
// single_pass.f32.min, 144 in scan_tiles, 64 in reduce_tiles; none for add or any integer operator).
#ifndef GPUSCAN_TILE_GLSL
#define GPUSCAN_TILE_GLSL

#include "subgroup_totals.glsl"
#include "tile_layout.glsl"

#if defined(TILE_ROW_HALVES)
#if !defined(SCAN_ELEMENT_IS_T)
#error "row halves (tile_layout.glsl) scan T only"
#endif
// A row is two half rows (tile_layout.glsl): what lies before each of this lane's halves.
#define ROW_PREFIX VEC2
ROW_PREFIX row_prefix_combine(T a, ROW_PREFIX p) { return ROW_PREFIX(op_combine(a, p.x), op_combine(a, p.y)); }
#else
#define ROW_PREFIX SCAN_ELEMENT
#define row_prefix_combine scan_combine
#endif

SCAN_VECTOR t_values[VECTORS_PER_LANE];
ROW_PREFIX t_prefix[VECTORS_PER_LANE];

// Row k of the tile scan: scans `row` inside the vector and across the subgroup and returns `carry`
// (everything before the row in this subgroup's rows) with the row's total combined in. With keep,
// leaves the row's scanned values in t_values[k] and what comes before them in the subgroup in
// t_prefix[k].
SCAN_ELEMENT tile_scan_row(SCAN_ELEMENT carry, SCAN_VECTOR row, uint k, bool keep) {
#if defined(TILE_ROW_HALVES)
  // The lanes' .xy, then their .zw: each half scanned inside the lane and across the subgroup.
  const VEC4 v = VEC4(row.x, op_combine(row.x, row.y), row.z, op_combine(row.z, row.w));
  T before_low, total_low, before_high, total_high;
  scan_subgroup(v.y, before_low, total_low);
  scan_subgroup(v.w, before_high, total_high);
  const T after_low = op_combine(carry, total_low);
  if (keep) {
    t_values[k] = v;
    t_prefix[k] = VEC2(op_combine(carry, before_low), op_combine(after_low, before_high));
  }
  return op_combine(after_low, total_high);
#else
  const SCAN_VECTOR v = scan_vector_inclusive(row);
  SCAN_ELEMENT before_row, row_total;
  scan_subgroup(scan_vector_last(v), before_row, row_total);
  if (keep) {
    t_values[k] = v;
    t_prefix[k] = scan_combine(carry, before_row);
  }
  return scan_combine(carry, row_total);
#endif
}

// After the rows: combines the subgroups' carries across the workgroup; with keep, adds what lies before
// each subgroup to its t_prefix. Returns the tile total. Call from uniform control flow (barriers).
SCAN_ELEMENT tile_scan_subgroups(SCAN_ELEMENT carry, bool keep) {
  if (SUBGROUP_ELECT()) sh_subgroup_prefix[SUBGROUP_ID] = carry;
  subgroup_totals_exclusive_scan();
  if (keep) {
    const SCAN_ELEMENT before_subgroup = sh_subgroup_prefix[SUBGROUP_ID];
    UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) t_prefix[k] = row_prefix_combine(before_subgroup, t_prefix[k]);
  }
  const SCAN_ELEMENT total = sh_total;
  barrier();  // sh_subgroup_prefix and sh_total are free for the next use
  return total;
}

// Scans the rows of vectors this invocation loaded (one vector per row). With keep, leaves each
// vector's values scanned inside the vector in t_values and the combination of all tile elements
// before it in t_prefix. Returns the tile total. Call from uniform control flow (it uses barriers).
// Generic over the scanned element (scan_element.glsl): T here, (head, value) pairs in segmented.glsl.
SCAN_ELEMENT tile_scan_rows(SCAN_VECTOR rows[VECTORS_PER_LANE], bool keep) {
  SCAN_ELEMENT carry = scan_identity();
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) carry = tile_scan_row(carry, rows[k], k, keep);
  return tile_scan_subgroups(carry, keep);
}

void tile_load(uint tile, out SCAN_VECTOR rows[VECTORS_PER_LANE]) {
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) rows[k] = scan_load_vector(tile, k);
}

SCAN_ELEMENT tile_scan(uint tile, bool keep) {
  SCAN_VECTOR rows[VECTORS_PER_LANE];
  tile_load(tile, rows);
  return tile_scan_rows(rows, keep);
}

// The tile total of tile_scan(tile, false), with the very same arithmetic, but with one row in registers
// at a time (a loop the compiler is asked not to unroll). The look-back's fallback uses it: it runs while
// the single-pass workgroup holds scanned tiles in registers, and loading a whole tile there set the
// kernel's register count, so its occupancy (K = 8, W = 256 u32 on the H200: 122 registers instead of
// 80; bench/RESULTS.md). The fallback is rare, so its row-by-row loads cost little.
SCAN_ELEMENT tile_total(uint tile) {
  SCAN_ELEMENT carry = scan_identity();
  DONT_UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k)
    carry = tile_scan_row(carry, scan_load_vector(tile, k), k, false);
  return tile_scan_subgroups(carry, false);
}

#if defined(SCAN_ELEMENT_IS_T)
// Writes a kept tile (values and prefixes as tile_scan leaves them in t_values / t_prefix, or a copy
// of them) with `tile_prefix` (everything before the tile) combined in.
void tile_store_kept(uint tile, T tile_prefix, VEC4 values[VECTORS_PER_LANE], ROW_PREFIX prefixes[VECTORS_PER_LANE]) {
  UNROLL for (uint k = 0u; k < VECTORS_PER_LANE; ++k) {
    const VEC4 v = values[k];
#if defined(TILE_ROW_HALVES)
    const T low = op_combine(tile_prefix, prefixes[k].x), high = op_combine(tile_prefix, prefixes[k].y);
    const T first_low = INCLUSIVE ? op_combine(low, v.x) : low;
    const T first_high = INCLUSIVE ? op_combine(high, v.z) : high;
    const T second_low = op_combine(low, INCLUSIVE ? v.y : v.x);
    const T second_high = op_combine(high, INCLUSIVE ? v.w : v.z);
    store_vector(tile, k, VEC4(first_low, second_low, first_high, second_high));
#else
    const T before = op_combine(tile_prefix, prefixes[k]);
    VEC4 out_v;
    if (INCLUSIVE) {
      out_v = VEC4(op_combine(before, v.x), op_combine(before, v.y), op_combine(before, v.z),
                   op_combine(before, v.w));
    } else {
      out_v = VEC4(before, op_combine(before, v.x), op_combine(before, v.y), op_combine(before, v.z));
    }
    store_vector(tile, k, out_v);
#endif
  }
}

void tile_store(uint tile, T tile_prefix) { tile_store_kept(tile, tile_prefix, t_values, t_prefix); }
#endif

#endif
