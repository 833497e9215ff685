// What both backends' radix sorts share (src/vulkan/sort.cpp, src/gl/sort.cpp): the checks of a
// SortConfig, the tile shape and the layout of temp, with no graphics API in sight.
//
// Temp: [keys: count keys][values: count values][digit counts: 256 · tiles u32 (onesweep: 256 · passes)]
// [onesweep: the tile counter, 8 bytes, and the tile states, 256 · tiles 64-bit words][the count scan's temp]
// [count_from: the words shaders/indirect_count.comp writes], each part at a multiple of 64 bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include <string>

#include "core/indirect.hpp"
#include "core/pipeline_key.hpp"
#include "core/plan.hpp"
#include "core/program.hpp"
#include "gpuscan/sort.hpp"

namespace gpuscan::core {

constexpr uint32_t kSortDigitBits = 8;
constexpr uint32_t kSortRadix = 1u << kSortDigitBits;
// pc.flags (shaders/common/radix_key.glsl)
constexpr uint32_t kSortKeySigned = 1, kSortKeyFloat = 2, kSortDescending = 4, kSortIndexValues = 8;

struct SortBitRange {
  uint32_t begin, end;
};

// The config's bit range, end_bit 0 made the key's width; Errc::invalid_argument outside the key.
SortBitRange sort_bit_range(const SortConfig& config);
// Passes of 8 bits over the range, at least one.
uint32_t sort_pass_count(const SortBitRange& bits);
// Errc::invalid_argument unless value_bytes is 0 (`pairs` false) or 4 or 8 (`pairs`).
void check_sort_values(const SortConfig& config, bool pairs);
// pc.flags of the key type and direction.
uint32_t sort_key_flags(const SortConfig& config);

// What the tile shape depends on.
struct SortDevice {
  // The narrowest subgroup the ballot ranking may meet; 0: the ranking without subgroups
  // (GPUSCAN_NO_SUBGROUPS, common/radix_rank.glsl), whose shared memory adds one word per invocation.
  uint32_t narrowest_subgroup = 0;
  uint32_t least_workgroup = 1;  // core::min_workgroup_size
  uint32_t max_invocations = 0;
  uint64_t max_shared_bytes = 0;
};

struct SortShape {
  uint32_t workgroup_size;  // W
  uint32_t keys_per_lane;   // K
  uint32_t rows;            // counter rows: W / the narrowest subgroup (0 without subgroups)
  uint32_t shared_words;    // sh_sort's words (shaders/common/radix_rank.glsl)
  bool subgroups;           // the ballot ranking
  uint64_t tile() const { return uint64_t{workgroup_size} * keys_per_lane; }
};

// W and K from the config (0 = the defaults), K halved from its default until the tile fits shared
// memory. Errc::invalid_argument for a W or K that is not allowed or (asked for) does not fit;
// Errc::unsupported when not even K = 1 fits.
SortShape sort_shape(const SortDevice& device, const SortConfig& config);

struct SortLayout {
  SortShape shape{};
  SortBitRange bits{};
  bool onesweep = false;
  uint32_t passes = 1;
  uint64_t tiles = 0;
  uint64_t counts = 0;  // u32 digit counts: 256 · tiles (onesweep: 256 · passes)
  uint64_t keys = 0, values = 0, count_words = 0, states = 0, scan_temp = 0;  // byte offsets in temp
  uint64_t state_bytes = 0;  // onesweep: the tile counter and the states
  std::optional<IndirectRegion> indirect;  // count_from: the indirect count's words (u32 elements)
  uint64_t bytes = 0;
};

// Errc::too_large past 2^32 - 1 keys: positions and digit counts are u32.
void check_sort_positions(uint64_t count);
// Errc::too_large past 2^32 - 1 keys or past `fit` keys (what one binding holds, `limit` naming it).
void check_sort_count(uint64_t count, uint64_t fit, uint32_t key_bytes, uint32_t value_bytes, const char* limit);
// Fills tiles and counts for `count` keys (none for 0), from l.shape, l.passes and l.onesweep.
void size_sort_counts(SortLayout& l, uint64_t count);
// Places the arrays in temp after size_sort_counts, the count scan's temp taking `scan_temp_bytes`;
// `indirect`: with the words of a count from GPU memory at the end.
void place_sort_arrays(SortLayout& l, uint64_t count, uint32_t key_bytes, uint32_t value_bytes,
                       uint64_t scan_temp_bytes, bool indirect);

// The key of a sort kernel of `variant` in this shape.
PipelineKey sort_kernel_key(const SortShape& s, std::string variant);

// The sort's buffers, in the order the executors are given them (values_in: empty without values or with
// values_are_indices; count and status: a count in GPU memory's).
enum SortBuffer : uint8_t { sort_keys_in, sort_keys_out, sort_values_in, sort_values_out, sort_temp, sort_count,
                            sort_status };
inline constexpr std::string_view sort_buffer_names[] = {"keys_in", "keys_out", "values_in", "values_out",
                                                         "temp",    "count",    "status"};

// Where a sort's program stops: the whole sort, or (the benchmark's per-stage times) after the first
// pass's digit counts -- every pass's for the Onesweep sort -- or after their scan too.
enum class SortStop : uint8_t { counts, counts_and_scan, all };

// What a sort's program takes of the backend and the call.
struct SortRequest {
  SortConfig config;
  uint64_t count = 0;            // keys, or a count in GPU memory's bound
  bool indices = false;          // values_are_indices: pass 0 writes positions as values
  bool device_address = false;   // keys and values through device addresses (the ".bda" kernels)
  bool count_from = false;       // a count in GPU memory (layout.indirect holds its words)
  bool count_64bit = false, count_status = false;
  // The exclusive u32 scan of `count` digit counts in place (core::PlanBuffer's buffers, input = output).
  std::function<Program(uint64_t count)> counts_scan;
  std::string downsweep_suffix;  // OpenGL without ballots: ".no_subgroups"
  PlanLimits limits;
  uint32_t spin_limit = 1024;    // the Onesweep kernel's constants
  bool withhold_first_tile = false;
  SortStop stop = SortStop::all;
};

// The LSD radix sort laid out as `l`: per pass each tile's digit counts (sort_upsweep), their scan in
// digit-major order, the stable scatter (sort_downsweep), ping-ponging between keys_out and temp so that
// the last pass writes keys_out. Onesweep: every pass's counts at once (sort_histogram), their scan, then
// per pass the tile states cleared and one sort_onesweep dispatch. With a count in GPU memory an
// indirect_count dispatch first clamps it (and writes the status word); a count of 0 then dispatches
// that alone. Bindings of the kernels: 0 keys in, 1 keys out, 2 digit counts (Onesweep: counts and
// states as 64-bit words), 3 values in, 4 values out, 5 the count's words; SortParams
// (shaders/common/radix_key.glsl), the ".bda" kernels' addresses from word 14.
Program sort_program(const SortLayout& l, const SortRequest& request);

// A range a sort reads or writes, for check_sort_overlaps.
struct NamedRange {
  const char* name;
  ByteRange range;
};
// Errc::invalid_argument naming the first two ranges that overlap.
void check_sort_overlaps(std::span<const NamedRange> ranges);

// The untyped convenience calls' checks (sort_bytes): returns the number of keys.
uint64_t check_sort_bytes(uint64_t key_bytes, uint64_t value_bytes, const SortConfig& config, bool indices);

}  // namespace gpuscan::core
