// Segmented scans: scans that restart at the start of every segment, for every type and
// operator of ScanConfig. Segments are given either by head flags (one u32 per element, non-zero where a
// segment starts) or by keys (a segment is a run of equal consecutive keys, u32 or u64). Element 0
// always starts a segment.
//
//   std::vector<uint32_t> v     = {3, 1, 7, 0, 4, 1, 6, 3};
//   std::vector<uint32_t> flags = {1, 0, 0, 1, 0, 1, 0, 0};          // segments [3 1 7] [0 4] [1 6 3]
//   gpuscan::ScanConfig c;                                          // u32 add, exclusive
//   auto ex = gpuscan::segmented_scan(ctx, std::span<const uint32_t>(v), std::span<const uint32_t>(flags), c);
//   // ex == {0, 3, 4,  0, 0,  0, 1, 7}    the first element of every segment gets the identity
//   c.kind = gpuscan::ScanKind::inclusive;
//   std::vector<uint32_t> keys = {9, 9, 9, 4, 4, 9, 9, 9};          // the same segments, by key
//   auto in = gpuscan::segmented_scan_by_key(ctx, std::span<const uint32_t>(keys), std::span<const uint32_t>(v), c);
//   // in == {3, 4, 11,  0, 4,  1, 7, 10}
//
// How it runs: reduce-then-scan over (head, value) pairs, whose operator
//   (ha, a) (+) (hb, b) = (ha | hb, hb ? b : a (+) b)
// is associative for every associative (+) (docs/scan.md#segmented-scans). Heads are read straight from
// the flags or keys in every pass (no pass writes flags for the data). It moves about 3N values and 2N
// heads (N more heads for keys); the order of combination depends only on n, the tile shape and the
// subgroup size, never on scheduling, so float results are bitwise reproducible. Ranges longer than one
// storage-buffer binding (maxStorageBufferRange; heads count too: u64 keys halve the window) run as
// consecutive windows of whole tiles, the value of the segment open at a window's end carried into the
// next on the GPU (a key is compared with the previous window's last key), so any count runs whose
// buffers fit in memory (docs/scan.md#segmented-scans). It needs subgroup
// shuffles (shuffle and shuffle_relative) in compute shaders, and for u64/i64 shaderSubgroupExtendedTypes;
// Errc::unsupported says what is missing. gpuscan::gl has the same calls (gl.hpp), run without subgroups.
//
// This header holds SegmentHeads, which every backend shares, and names no graphics API; the Vulkan calls
// are in gpuscan/vulkan/segmented.hpp (included by gpuscan/vulkan.hpp).
#pragma once

#include <cstdint>
#include <string_view>

namespace gpuscan {

// What SegmentedScanArgs::heads holds.
enum class SegmentHeads : uint8_t {
  flags,     // one u32 per element: non-zero = the element starts a segment
  keys_u32,  // one u32 key per element: a segment starts where the key differs from the previous one
  keys_u64,  // one u64 key per element, likewise
};
std::string_view to_string(SegmentHeads heads) noexcept;  // "flags", "u32 keys", "u64 keys"

// Which fields of ScanConfig a segmented scan uses: type, op, kind, workgroup_size and vectors_per_lane
// (tiles of W · K · 4 elements). algorithm must be automatic or reduce_then_scan (the only segmented plan;
// anything else is Errc::unsupported); workgroup, spin_limit and deterministic do not apply (it is always
// deterministic).

}  // namespace gpuscan
