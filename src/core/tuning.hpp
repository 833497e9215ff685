// The tuning table: every default tile shape, spin limit and tile count the backends pick when a
// config leaves them 0, with the measurements behind them (H200: bench/RESULTS.md; lavapipe, the CPU
// device the tests run on, keeps the plain defaults). The profiles (core/profile.hpp) are made of these
// numbers; the policy (core/scan_policy.hpp) reads them from a profile only. Internal: a config states its own
// values, and Context::workgroup_size / vectors_per_lane say what a scan takes.
#pragma once

#include <cstdint>

#include "gpuscan/types.hpp"

namespace gpuscan::core {

// The plain defaults of W and K are public (gpuscan/types.hpp, with the measurement behind K per element
// size: bench/RESULTS.md, the shape sweep per element type).
using gpuscan::default_vectors_per_lane;
using gpuscan::default_vectors_per_lane_for;
using gpuscan::default_workgroup_size;
// Single-pass tile shapes. The single-pass scan's defaults depend on the type, the kind and the count
// (core::single_pass_shape; measured on the H200, bench/RESULTS.md; lavapipe keeps W = 256 and
// default_vectors_per_lane_for):
// - above large_tile_min_elements, exclusive scans of 4-byte types take K = large_tile_vectors_per_lane.
//   With 8 the H200 runs 3 workgroups of 256 per SM (80 registers each), each with a 32 KiB tile in
//   flight: 2^24-2^28 u32 7-16 % faster than K = 4; 2^22 was 4 % slower;
// - there, inclusive scans of u32/i32 take W = inclusive_large_tile_workgroup_size with K = 8: their kernel
//   holds a fourth value per vector, 114 registers at W = 256, K = 8 (two workgroups per SM) but 96 at
//   W = 128 (five); 4-6 % faster than W = 256, K = 4 at 2^24-2^27, the same tile size;
// - exclusive scans of u32/i32 of at most small_tile_max_elements take K = small_tile_vectors_per_lane:
//   tiles of 2048, twice as many workgroups at once; 2^16 9 %, 2^18 4 % faster.
inline constexpr uint32_t large_tile_vectors_per_lane = 8;
inline constexpr uint64_t large_tile_min_elements = uint64_t{1} << 23;
inline constexpr uint32_t inclusive_large_tile_workgroup_size = 128;
inline constexpr uint32_t small_tile_vectors_per_lane = 2;
inline constexpr uint64_t small_tile_max_elements = uint64_t{1} << 18;
// Reduce-then-scan tile shapes (core::reduce_then_scan_shape): W = 256 and default_vectors_per_lane_for,
// except 8-byte types above large_tile_min_elements, which take W = large_eight_byte_rts_workgroup_size
// (K = 2: tiles of 512): on the H200 u64 at 2^24 / 2^26 / 2^28 7 / 5 / 4 % faster than at W = 256 (W = 32
// slower again), f64 6 / 1 / 4 %. Not on lavapipe.
inline constexpr uint32_t large_eight_byte_rts_workgroup_size = 64;
// The most elements `automatic` gives the single-pass scan before reduce-then-scan: its 3N bytes beat the
// single-pass scan's 2N once the look-back costs more than the extra pass. H200, default shapes
// (bench/RESULTS.md): exclusive scans of 4-byte types, with their large single-pass tiles, ran faster
// single-pass up to 2^29 (2^28 is the limit: larger scans of them may need windows); inclusive ones of
// u32/i32, with theirs (W = 128, K = 8), up to 2^27 (level there, 4 % slower at 2^28); other inclusive
// scans and 8-byte types were faster single-pass at 2^24 and reduce-then-scan from 2^26.
// Past 2^28 too: the single-pass scan runs in windows past one binding, and it stayed the faster one
// (H100, 2026-12-07: u32 2^29 1.747 against 2.099 ms, 2^30 3.498 against 4.184).
inline constexpr uint64_t no_auto_limit = UINT64_MAX;
inline constexpr uint64_t h200_auto_limit_exclusive_four_byte = no_auto_limit;
inline constexpr uint64_t h200_auto_limit_inclusive_four_byte_integer = uint64_t{1} << 27;
inline constexpr uint64_t h200_auto_limit_other = uint64_t{1} << 25;
// The H100 (80GB HBM3, driver 580.159.04) differs where the H200 took reduce-then-scan: there the
// single-pass scan was the faster one at every size measured. Inclusive u32 2^28 7-9 % faster
// (bench/RESULTS.md), 2^29 1.922 against 2.099 ms, 2^30 3.845 against 4.184; u64 from 2^26 7-9 % faster,
// 2^28 exclusive 1.983 against 2.125, inclusive 2.088 against 2.125; at 2^28 f32 inclusive (unordered
// look-back) 1.037 against 1.064, f64 exclusive 2.116 against 2.130, inclusive 2.099 against 2.129.
inline constexpr uint64_t h100_auto_limit_inclusive_four_byte_integer = no_auto_limit;
inline constexpr uint64_t h100_auto_limit_other = no_auto_limit;
// Ordered (deterministic floats), on the H200: f32 at 2^20 1.4x reduce-then-scan's speed, at 2^21
// 1.01-1.03x, at 2^22 7-10 % slower; f64 at 2^20 1.02-1.04x, at 2^21 already 8-9 % slower.
inline constexpr uint64_t h200_auto_limit_ordered_eight_byte = uint64_t{1} << 20;
// Deterministic exclusive f32 scans above the ordered limit, on the H100 (default shapes, G = 528): the
// look-ahead took 17-22 % less time than reduce-then-scan at 2^22-2^28 (2^28: 0.890 against 1.072 ms) and
// 7 % less than the ordered look-back at 2^28 (bench/RESULTS.md). Not measured beyond 2^28, nor on the H200.
inline constexpr uint64_t h100_look_ahead_deterministic_f32_max = uint64_t{1} << 28;
// Every other limit, and every limit of the other profiles. On lavapipe, a CPU where the look-back's
// waits hide nothing, reduce-then-scan was faster already at 2^22 (12.5 vs 22.9 ms).
inline constexpr uint64_t plain_single_pass_auto_limit = uint64_t{1} << 21;
// 1024 polls (one poll: an L2 round trip). With the GPU's clock up, 64 and 1024 run equally fast on the
// H200 (bench/RESULTS.md; the slow batches once blamed on 64 were the clock); the longer limit
// only makes the fallback rarer. A predecessor that really does not run costs its waiter 1024 polls.
inline constexpr uint32_t default_spin_limit = 1024;
// lavapipe ends all loops of an invocation after 65535 iterations in all (docs/design.md), so long
// polling there would silently cut a look-back short: requests are capped to this.
inline constexpr uint32_t lavapipe_max_spin_limit = 256;
// 4 tiles per workgroup: 13-23 % faster than 1 at 2^22-2^26 u32 on the H200 (W = 256), 2-32 alike at 2^28.
// The default takes one tile per workgroup up to several_tiles_min_tiles tiles: so few that every tile gets
// a workgroup of its own at once, a further index only delays the held tile (2^20: 2-4 % slower with 4).
inline constexpr uint32_t default_tiles_per_workgroup = 4;
inline constexpr uint64_t several_tiles_min_tiles = 512;
// lavapipe takes one tile per workgroup by default: on a CPU there is no memory latency for a next tile
// to hide, and 4 made a 2^22 u32 scan 1.5x slower there (22.9 -> 34.2 ms). Requests are capped for the
// same loop limit as the spin limit: each tile adds its look-back's polls to the invocation's iterations.
inline constexpr uint32_t lavapipe_max_tiles_per_workgroup = 4;

// The single-pass selection's K by default for large inputs (CompactConfig::vectors_per_lane): above
// large_tile_min_elements where the tile fits shared memory, 3-11 % faster than 4 on the H200.
inline constexpr uint32_t compact_large_tile_vectors_per_lane = 8;

// Histograms (core::histogram_key, core::histogram_groups). H100, 256 even bins, one call, medians of 20
// (bench/RESULTS.md, "Histogram grids"): 4-byte samples take W = 512 with 8 samples a step. At 2^28 that
// ran f32 in 0.378 ms and u32 in 0.626 (at most 4096 workgroups) against 0.446 and 0.774 with the shape
// before (W = 256; 4 a step for f32, 1 for u32; at most 2048 workgroups). 8-byte samples keep W = 256,
// one a step (not measured).
inline constexpr uint32_t histogram_four_byte_workgroup_size = 512;
inline constexpr uint32_t histogram_four_byte_vectors = 8;
// The grid: about one workgroup per histogram_samples_per_workgroup samples, at least
// histogram_fewest_workgroups and at most histogram_most_workgroups, and never more than one step each. Each
// workgroup zeroes its shared counts, then flushes them with one global atomic per bin, so a grid larger
// than needed costs atomics: at 2^24 (W = 512, 8 a step) 528 workgroups ran f32 in 0.040 ms, 2048 in 0.046
// and 4224 in 0.063. At 2^20 one step each leaves 256 (0.0128 ms f32, 0.0132 u32; the shape before: 0.0195
// and 0.0310). At 2^28 u32 took 0.626 ms with 4224 workgroups, 0.650 with 2048, 0.657 with 1056.
inline constexpr uint64_t histogram_samples_per_workgroup = 32768;
inline constexpr uint32_t histogram_fewest_workgroups = 256;
inline constexpr uint32_t histogram_most_workgroups = 4096;
// lavapipe's loop limit (above): an invocation counts at most this many samples there, each taking one
// iteration of the sample loop and at most 30 of the bin search (a binary search over up to 2^30 bins), so
// that 1024 * 31 stays inside 65535.
inline constexpr uint32_t lavapipe_histogram_max_samples_per_invocation = 1024;

}  // namespace gpuscan::core
