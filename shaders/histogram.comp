#version 450
// Histogram (include/gpuscan/vulkan/histogram.hpp; OpenGL: src/gl/histogram.cpp): workgroups stride over
// the samples of one window and count each into its bin, in shared-memory counters when the bins fit
// there (flushed with one global atomic per non-zero bin), else straight into the global counts. No subgroup operations, no waiting on
// other workgroups. Bin membership is exact: the candidate bin is moved until edge_c <= x < edge_{c+1}
// holds against the edge table (src/core/histogram_edges.hpp says why its values make that exact).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);
SPEC_CONSTANT(3, uint, VECTORS, 1u);  // samples an invocation loads per step: 1, 2, 4 or 8

#include "common/ops.glsl"

#if defined(COUNTS_U64) && defined(GPUSCAN_GL)
// OpenGL has no 64-bit buffer atomics in core: each u64 count is its two words (low first, as std430 lays out
// a u64), added to with 32-bit atomics and a carry into the high word whenever the low word wraps. Once
// every addition is done the pair holds the exact sum.
#define COUNT uint
#elif defined(COUNTS_U64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#define COUNT uint64_t
#else
#define COUNT uint
#endif

const uint SHARED_BINS = 4096u;  // kHistogramSharedBins
const uint FLAG_EVEN = 1u;         // candidate from (x - lower) * scale, else a binary search
const uint FLAG_CHECK_UPPER = 2u;  // edge_n is a sample value (src/core/histogram_edges.hpp)
const uint FLAG_CLOSED = 4u;       // the last bin includes edge_n
const uint FLAG_SHARED = 8u;       // count in shared memory first
const uint FLAG_INDIRECT = 16u;    // the sample count is in g_count_words (HistogramArgs::count_from)
const uint FLAG_COUNT64 = 32u;     // ... as a u64, low word first
const uint FLAG_STATUS = 64u;      // ... and this dispatch writes the status word

PARAMS_BLOCK uniform HistogramParams {
  uint n;              // samples in this window
  uint src_offset;     // element offsets inside bindings 0, 1, 2
  uint counts_offset;
  uint edges_offset;
  uint num_bins;
  uint searchable;     // bins 0..searchable-1 can hold a sample
  uint flags;
  float lower;         // the even bins' lower bound and bins per unit, for the candidate only
  float scale;
  uint groups;         // workgroups in the grid
  uint count_offset;   // FLAG_INDIRECT: the count's word offset in binding 3,
  uint start_lo;       // this window's first sample,
  uint start_hi;
  uint bound_lo;       // the count's upper bound (HistogramArgs::count),
  uint bound_hi;
  uint status_offset;  // and the status word's offset in binding 4
  float accept_margin; // f32 even bins: the candidate's fast accept (below); 1: never
} pc;

layout(binding = 0, std430) readonly buffer Samples { T g_samples[]; };
layout(binding = 1, std430) buffer Counts { COUNT g_counts[]; };
layout(binding = 2, std430) readonly buffer Edges { T g_edges[]; };
layout(binding = 3, std430) readonly buffer CountWords { uint g_count_words[]; };
layout(binding = 4, std430) buffer StatusWord { uint g_status[]; };

shared uint s_counts[SHARED_BINS];

T edge(uint i) { return g_edges[pc.edges_offset + i]; }

// The bin of x, or -1 when x is not counted (outside the edges, NaN).
int bin_of(T x) {
#if defined(TYPE_F32)
  // Even f32 bins: a candidate g more than pc.accept_margin inside (c, c + 1) is bin c, exactly, without
  // reading an edge (core::f32_accept_margin says why). NaN, infinities and samples near an edge fail the
  // tests and take the search below.
  if ((pc.flags & FLAG_EVEN) != 0u) {
    precise float g = (x - pc.lower) * pc.scale;
    if (g > pc.accept_margin && g < float(pc.searchable)) {
      const float c = floor(g);
      precise float f = g - c;
      if (f > pc.accept_margin && f < 1.0 - pc.accept_margin && uint(c) < pc.searchable) return int(c);
    }
  }
#endif
  if (pc.searchable == 0u || !(x >= edge(0u))) return -1;
  if ((pc.flags & FLAG_CHECK_UPPER) != 0u) {
    const T top = edge(pc.num_bins);
    if ((pc.flags & FLAG_CLOSED) != 0u ? !(x <= top) : !(x < top)) return -1;
  }
  // The last bin whose lower edge is <= x, in [lo, hi]; edge(lo) <= x holds throughout.
  uint lo = 0u, hi = pc.searchable - 1u;
  if ((pc.flags & FLAG_EVEN) != 0u) {
    // A guess, clamped so that NaN (float(x) and pc.lower both -inf for a huge f64 range) starts at 0. It
    // is right except where float lacks the range or precision (a huge f64 range, 64-bit integers) or
    // rounds across an edge: two edge reads, then a search only on the side it missed, so that no sample
    // walks many bins.
    const float guess = (float(x) - pc.lower) * pc.scale;
    const uint c = !(guess > 0.0) ? 0u : (guess >= float(hi) ? hi : uint(guess));
    if (x < edge(c)) hi = c - 1u;  // c > 0: x >= edge(0)
    else if (c < hi && x >= edge(c + 1u)) lo = c + 1u;
    else return int(c);
  }
  while (lo < hi) {
    const uint mid = hi - (hi - lo) / 2u;
    if (edge(mid) <= x) lo = mid; else hi = mid - 1u;
  }
  return int(lo);
}

void add_global(uint bin, uint amount) {
#if defined(COUNTS_U64) && defined(GPUSCAN_GL)
  const uint low = 2u * (pc.counts_offset + bin);
  const uint before = atomicAdd(g_counts[low], amount);
  if (before + amount < before) atomicAdd(g_counts[low + 1u], 1u);
#elif defined(COUNTS_U64)
  atomicAdd(g_counts[pc.counts_offset + bin], uint64_t(amount));
#else
  atomicAdd(g_counts[pc.counts_offset + bin], amount);
#endif
}

// Counts one sample of bin c (nothing for c < 0).
void count_sample(int c, bool use_shared) {
  if (c < 0) return;
  if (use_shared) atomicAdd(s_counts[c], 1u);
  else add_global(uint(c), 1u);
}

bool above(uvec2 a, uvec2 b) { return a.y > b.y || (a.y == b.y && a.x > b.x); }

// The samples of this window: pc.n, or with a count in GPU memory what of min(count, bound) falls in
// [start, start + pc.n). Sets the status word (count above the bound) on the first window.
uint window_samples() {
  if ((pc.flags & FLAG_INDIRECT) == 0u) return pc.n;
  const bool wide = (pc.flags & FLAG_COUNT64) != 0u;
  uvec2 count = uvec2(g_count_words[pc.count_offset], wide ? g_count_words[pc.count_offset + 1u] : 0u);
  const uvec2 bound = uvec2(pc.bound_lo, pc.bound_hi);
  const bool over = above(count, bound);
  if ((pc.flags & FLAG_STATUS) != 0u && gl_WorkGroupID.x == 0u && gl_LocalInvocationID.x == 0u)
    g_status[pc.status_offset] = over ? 1u : 0u;
  if (over) count = bound;
  const uvec2 start = uvec2(pc.start_lo, pc.start_hi);
  if (!above(count, start)) return 0u;
  const uint lo = count.x - start.x;
  const uint hi = count.y - start.y - (count.x < start.x ? 1u : 0u);
  return hi != 0u ? pc.n : min(lo, pc.n);
}

void main() {
  const uint n = window_samples();
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const bool use_shared = (pc.flags & FLAG_SHARED) != 0u;  // uniform: barriers below are safe
  if (use_shared) {
    for (uint b = lid; b < pc.num_bins; b += w) s_counts[b] = 0u;
    barrier();
  }
  const uint stride = pc.groups * w;  // windows hold at most 2^31 samples, so i never wraps
  uint i = gl_WorkGroupID.x * w + lid;
  // VECTORS samples a step, each load coalesced on its own, so that VECTORS loads per invocation are in
  // flight (core::histogram_default_vectors has the measurements behind the defaults).
  for (; i + (VECTORS - 1u) * stride < n; i += VECTORS * stride) {
    T x[VECTORS];
    UNROLL for (uint u = 0u; u < VECTORS; ++u) x[u] = g_samples[pc.src_offset + i + u * stride];
    UNROLL for (uint u = 0u; u < VECTORS; ++u) count_sample(bin_of(x[u]), use_shared);
  }
  for (; i < n; i += stride) count_sample(bin_of(g_samples[pc.src_offset + i]), use_shared);
  if (use_shared) {
    barrier();
    for (uint b = lid; b < pc.num_bins; b += w) {
      const uint v = s_counts[b];
      if (v != 0u) add_global(b, v);
    }
  }
}
