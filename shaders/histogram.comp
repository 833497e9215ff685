#version 450
// Histogram (include/gpuscan/vulkan/histogram.hpp): workgroups stride over the samples of one window and
// count each into its bin, in shared-memory counters when the bins fit there (flushed with one global
// atomic per non-zero bin), else straight into the global counts. No subgroup operations, no waiting on
// other workgroups. Bin membership is exact: the candidate bin is moved until edge_c <= x < edge_{c+1}
// holds against the edge table (src/core/histogram_edges.hpp says why its values make that exact).
#extension GL_GOOGLE_include_directive : require

#include "common/backend.glsl"
LOCAL_SIZE_X_FROM(0);

#include "common/ops.glsl"

#if defined(COUNTS_U64)
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
} pc;

layout(binding = 0, std430) readonly buffer Samples { T g_samples[]; };
layout(binding = 1, std430) buffer Counts { COUNT g_counts[]; };
layout(binding = 2, std430) readonly buffer Edges { T g_edges[]; };

shared uint s_counts[SHARED_BINS];

T edge(uint i) { return g_edges[pc.edges_offset + i]; }

// The bin of x, or -1 when x is not counted (outside the edges, NaN).
int bin_of(T x) {
  if (pc.searchable == 0u || !(x >= edge(0u))) return -1;
  if ((pc.flags & FLAG_CHECK_UPPER) != 0u) {
    const T top = edge(pc.num_bins);
    if ((pc.flags & FLAG_CLOSED) != 0u ? !(x <= top) : !(x < top)) return -1;
  }
  const uint last = pc.searchable - 1u;
  uint c;
  if ((pc.flags & FLAG_EVEN) != 0u) {
    c = uint(clamp((float(x) - pc.lower) * pc.scale, 0.0, float(last)));
    while (c > 0u && x < edge(c)) --c;
    while (c < last && x >= edge(c + 1u)) ++c;
  } else {  // the last bin whose lower edge is <= x
    uint lo = 0u, hi = last;
    while (lo < hi) {
      const uint mid = hi - (hi - lo) / 2u;
      if (edge(mid) <= x) lo = mid; else hi = mid - 1u;
    }
    c = lo;
  }
  return int(c);
}

void add_global(uint bin, uint amount) {
#if defined(COUNTS_U64)
  atomicAdd(g_counts[pc.counts_offset + bin], uint64_t(amount));
#else
  atomicAdd(g_counts[pc.counts_offset + bin], amount);
#endif
}

void main() {
  const uint w = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  const bool use_shared = (pc.flags & FLAG_SHARED) != 0u;  // uniform: barriers below are safe
  if (use_shared) {
    for (uint b = lid; b < pc.num_bins; b += w) s_counts[b] = 0u;
    barrier();
  }
  const uint stride = pc.groups * w;  // windows hold at most 2^31 samples, so i never wraps
  for (uint i = gl_WorkGroupID.x * w + lid; i < pc.n; i += stride) {
    const int c = bin_of(g_samples[pc.src_offset + i]);
    if (c < 0) continue;
    if (use_shared) atomicAdd(s_counts[c], 1u);
    else add_global(uint(c), 1u);
  }
  if (use_shared) {
    barrier();
    for (uint b = lid; b < pc.num_bins; b += w) {
      const uint v = s_counts[b];
      if (v != 0u) add_global(b, v);
    }
  }
}
