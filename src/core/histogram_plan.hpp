// What a histogram (shaders/histogram.comp) does, independent of the API that runs it: the edge table,
// the kernel's flags and parameter words, its windows over the samples, and the checks every backend
// makes the same way. src/vulkan/histogram.cpp and src/gl/histogram.cpp dispatch what this plans.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/histogram_edges.hpp"
#include "core/indirect.hpp"
#include "core/pipeline_key.hpp"
#include "core/program.hpp"
#include "gpuscan/histogram.hpp"

namespace gpuscan::core {

// The kernel's flags (shaders/histogram.comp, FLAG_*).
inline constexpr uint32_t histogram_flag_even = 1;
inline constexpr uint32_t histogram_flag_check_upper = 2;
inline constexpr uint32_t histogram_flag_closed = 4;
inline constexpr uint32_t histogram_flag_shared = 8;
inline constexpr uint32_t histogram_flag_indirect = 16;
inline constexpr uint32_t histogram_flag_count64 = 32;
inline constexpr uint32_t histogram_flag_status = 64;
inline constexpr size_t histogram_param_words = 17;

// The counts' element size: 4 (u32) or 8 (u64); Errc::invalid_argument for any other type.
uint32_t histogram_count_bytes(DataType counts);

// W: `requested`, or for 0 the default of the sample type (core/tuning.hpp; at most bit_floor(most));
// Errc::invalid_argument unless a power of two up to `most` (the device's largest workgroup).
uint32_t histogram_workgroup_size(uint32_t requested, uint32_t most, DataType type);

// The kernel's variant name: "histogram.<sample type>.<count type>".
std::string histogram_variant(const HistogramConfig& config);

// The kernel's pipeline: its variant, W (histogram_workgroup_size) and the samples an invocation loads per
// step (HistogramConfig::vectors_per_lane, or histogram_default_vectors). Errc::invalid_argument for a W or a
// vectors_per_lane the kernel does not take.
PipelineKey histogram_key(const HistogramConfig& config, uint32_t most_invocations);
// Samples per step by type (core/tuning.hpp has the measurements).
uint32_t histogram_default_vectors(DataType type);
// The grid of one window of `len` samples: at most one step of the key's shape for each workgroup, at
// least one workgroup, at most `most` (HistogramConfig::max_workgroups, or histogram_default_groups for 0),
// `max_groups_x`, and 2^30 samples a step of the whole grid; but where that leaves an invocation more than
// `max_samples` samples (HistogramTuning::max_samples_per_invocation), enough workgroups to bring it
// under, past `most` (within the other two bounds).
uint32_t histogram_groups(uint64_t len, const PipelineKey& key, uint32_t most, uint32_t max_groups_x,
                          uint32_t max_samples = UINT32_MAX);
// The grid's size by default (core/tuning.hpp): len / histogram_samples_per_workgroup, clamped.
uint32_t histogram_default_groups(uint64_t len);

struct HistogramPlan {
  EdgeTable table;
  uint32_t num_bins = 0;
  uint32_t count_bytes = 4;
  uint32_t flags = 0;     // FLAG_* but FLAG_STATUS (the first window's own)
  float lower = 0, scale = 0;  // the even bins' candidate (histogram_flag_even)
  float accept_margin = 1;     // f32 even bins: the candidate's fast accept (f32_accept_margin); 1: never
  uint32_t max_workgroups = 0; // HistogramConfig::max_workgroups
  uint32_t max_samples_per_invocation = UINT32_MAX;  // the device profile's (HistogramTuning)
  uint64_t counted = 0;   // samples the windows cover: the count (its bound), 0 when none can be counted
  bool status = false;    // a count from GPU memory with a status word: the first window writes it

  uint64_t table_bytes() const { return table.words.size() * 4; }
  uint64_t counts_bytes() const { return uint64_t{num_bins} * count_bytes; }
  uint64_t sample_bytes(uint64_t count) const { return count * table.element_bytes; }
  // Temp: the edge table (at least one word, so that temp is never empty).
  uint64_t temp_bytes() const { return table_bytes() > 4 ? table_bytes() : 4; }
  // Nothing to dispatch: no sample can be counted and no status word to write.
  bool dispatches_nothing() const { return counted == 0 && !status; }
};

// The fast accept of the f32 even-bin kernel (shaders/histogram.comp). There g(x) = (x - lower) * scale, in
// f32 with each step correctly rounded (as Vulkan and GLSL require of subtraction and multiplication), is
// non-decreasing in x, so g(x) > g(e_c) implies x > e_c and g(x) < g(e_c+1) implies x < e_c+1. With every
// g(e_c) within m of c, a sample whose g lies more than m inside (c, c + 1) is in bin c, with no edge read.
// Returns that m, plus 2^-20 for a device that flushes subnormal products to zero; or 1 (the kernel then
// never accepts) for a non-f32 table, a subnormal edge, `lower` or edge difference (a device may flush
// those and compute another g), or an m of 1/4 or more.
float f32_accept_margin(const EdgeTable& table, float lower, float scale);

// The plan of a histogram of `count` samples (with `indirect`, the bound of a count in GPU memory, u64 when
// `count_64bit`, with a status word when `status`). Throws check_bins' errors and
// histogram_count_bytes'. Refuses (Errc::too_large) counts or an edge table past one binding of
// `max_binding_bytes`, naming `binding_limit` (the API's name of that limit).
HistogramPlan plan_histogram(const HistogramBins& bins, const HistogramConfig& config, uint64_t count, bool indirect,
                             bool count_64bit, bool status, uint64_t max_binding_bytes, const char* binding_limit);

// One dispatch: samples [start, start + len) in `groups` workgroups (at least one).
struct HistogramWindow {
  uint64_t start = 0;
  uint64_t len = 0;
  uint32_t groups = 1;
};
// The dispatches: one per window of `window_elements` samples (one of 0 samples where only the status
// word is written), each of histogram_groups workgroups.
std::vector<HistogramWindow> histogram_windows(const HistogramPlan& plan, uint64_t window_elements,
                                               const PipelineKey& key, uint32_t max_groups_x);

// The parameter words of window `w` (`bound`: HistogramArgs::count, the bound of a count in GPU memory);
// the offset words are those of bindings 0 to 4 (samples, counts, edges, count words, status).
std::array<Param, histogram_param_words> histogram_params(const HistogramPlan& plan, const HistogramWindow& w,
                                                          uint64_t bound);

// The histogram's buffers, in the order its program names them (the executors' buffer list).
enum HistogramBuffer : uint8_t { histogram_input, histogram_counts, histogram_temp, histogram_count_words,
                                 histogram_status };
inline constexpr std::string_view histogram_buffer_names[] = {"input", "counts", "temp", "count", "status"};
// What a histogram records: the counts zeroed (unless `accumulate`), the edge table written to temp, a
// barrier, then one dispatch of `key` per window of `window_elements` samples (histogram_windows), with
// barriers between (they add to the same counts). `bound`: HistogramArgs::count; `count_words`: the words
// of a count in GPU memory (1 or 2; 0 for none). Bindings the kernel does not read cover the counts.
Program histogram_program(const HistogramPlan& plan, const PipelineKey& key, bool accumulate, uint64_t bound,
                          uint32_t count_words, uint64_t window_elements, uint32_t max_groups_x);

// The ranges a histogram touches, as core sees them (bytes 0: none).
struct HistogramRanges {
  ByteRange input, counts, temp;
  ByteRange count, status;  // a count in GPU memory and its status word
};
// Errc::invalid_argument where the counts overlap the input or temp, temp the input, or the count in GPU
// memory or its status word a range written (the status word also the input).
void check_histogram_overlaps(const HistogramRanges& r);

// The samples in `bytes` bytes of `type`; Errc::invalid_argument unless a whole number of them.
uint64_t histogram_sample_count(size_t bytes, DataType type);
// Counts read back (little-endian u32 or u64) as u64.
std::vector<uint64_t> widen_counts(std::span<const std::byte> counts, uint32_t num_bins, uint32_t count_bytes);

}  // namespace gpuscan::core
