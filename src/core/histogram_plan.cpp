#include "core/histogram_plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/tuning.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {


// Equal widths: the kernel may start from an arithmetic candidate.
bool even_edges(const HistogramBins& bins) {
  const auto& e = bins.edges;
  if (!std::isfinite(e.front()) || !std::isfinite(e.back()) || !(e.front() < e.back())) return false;
  return HistogramBins::even(bins.num_bins(), e.front(), e.back()).edges == e;
}

}  // namespace

float f32_accept_margin(const EdgeTable& table, float lower, float scale) {
  if (table.element_bytes != 4 || table.searchable == 0) return 1;
  const auto subnormal = [](float v) { return v != 0 && std::fabs(v) < std::numeric_limits<float>::min(); };
  if (!std::isfinite(lower) || !std::isnormal(scale) || scale < 0 || subnormal(lower)) return 1;
  double margin = 0;
  for (size_t c = 0; c < table.edges(); ++c) {
    const float e = std::bit_cast<float>(table.words[c]);
    const float d = e - lower;  // one rounding each, as on the device
    if (std::isnan(e) || subnormal(e) || subnormal(d)) return 1;
    const float g = d * scale;
    if (c < table.searchable) margin = std::max(margin, double{g} - double(c));  // bin c's lower edge
    if (c > 0) margin = std::max(margin, double(c) - double{g});                // bin c - 1's upper edge
  }
  margin += 1.0 / (1 << 20);
  return margin < 0.25 ? static_cast<float>(margin) : 1.0f;
}

uint32_t histogram_count_bytes(DataType counts) {
  if (counts != DataType::u32 && counts != DataType::u64)
    throw Error(Errc::invalid_argument, "histogram counts are u32 or u64, not " + std::string(to_string(counts)));
  return element_size(counts);
}

uint32_t histogram_workgroup_size(uint32_t requested, uint32_t most, DataType type) {
  const uint32_t by_type = element_size(type) == 4 ? histogram_four_byte_workgroup_size : default_workgroup_size;
  if (requested == 0) return std::min(by_type, std::bit_floor(most));
  if (!std::has_single_bit(requested) || requested > most)
    throw Error(Errc::invalid_argument, "histogram workgroup size " + std::to_string(requested) +
                                            " is not a power of two up to " + std::to_string(most));
  return requested;
}

std::string histogram_variant(const HistogramConfig& config) {
  return "histogram." + std::string(to_string(config.type)) + "." + std::string(to_string(config.counts));
}

uint32_t histogram_default_vectors(DataType type) {
  return element_size(type) == 4 ? histogram_four_byte_vectors : 1;
}

PipelineKey histogram_key(const HistogramConfig& config, uint32_t most_invocations) {
  const uint32_t v = config.vectors_per_lane;
  if (v != 0 && v != 1 && v != 2 && v != 4 && v != 8)
    throw Error(Errc::invalid_argument,
                "histogram vectors_per_lane " + std::to_string(v) + " is not 1, 2, 4 or 8 (or 0 for gpuscan's choice)");
  PipelineKey key;
  key.variant = histogram_variant(config);
  key.workgroup_size = histogram_workgroup_size(config.workgroup_size, most_invocations, config.type);
  key.vectors_per_lane = v ? v : histogram_default_vectors(config.type);
  return key;
}

uint32_t histogram_default_groups(uint64_t len) {
  return static_cast<uint32_t>(std::clamp<uint64_t>((len + histogram_samples_per_workgroup - 1) /
                                                        histogram_samples_per_workgroup,
                                                    histogram_fewest_workgroups, histogram_most_workgroups));
}

uint32_t histogram_groups(uint64_t len, const PipelineKey& key, uint32_t most, uint32_t max_groups_x,
                          uint32_t max_samples) {
  const uint64_t step = uint64_t{key.workgroup_size} * key.vectors_per_lane;
  // One step of the whole grid at most 2^30 samples: with windows of at most 2^31 samples the kernel's
  // 32-bit indices never wrap.
  const uint64_t hard_cap = std::min<uint64_t>(max_groups_x, std::max<uint64_t>(1, (uint64_t{1} << 30) / step));
  const uint64_t cap = std::min<uint64_t>(most ? most : histogram_default_groups(len), hard_cap);
  uint64_t groups = std::max<uint64_t>(1, std::min<uint64_t>((len + step - 1) / step, cap));
  const uint64_t per_group = uint64_t{key.workgroup_size} * max_samples;
  groups = std::max(groups, std::min<uint64_t>((len + per_group - 1) / per_group, hard_cap));
  return static_cast<uint32_t>(groups);
}

HistogramPlan plan_histogram(const HistogramBins& bins, const HistogramConfig& config, uint64_t count, bool indirect,
                             bool count_64bit, bool status, uint64_t max_binding_bytes, const char* binding_limit) {
  HistogramPlan p;
  p.table = to_edge_table(bins, config.type, config.last_bin_closed);  // checks the bins
  p.num_bins = bins.num_bins();
  p.count_bytes = histogram_count_bytes(config.counts);
  // The counts and the edge table are each bound whole (they cannot be windowed as the samples are).
  if (p.counts_bytes() > max_binding_bytes || p.table_bytes() > max_binding_bytes)
    throw Error(Errc::too_large, std::to_string(p.num_bins) + " histogram bins need " +
                                     std::to_string(std::max(p.counts_bytes(), p.table_bytes())) +
                                     " bytes of counts or edges in one binding; this device binds at most " +
                                     std::to_string(max_binding_bytes) + " bytes (" + binding_limit + ")");
  const double lower = bins.edges.front();
  p.lower = static_cast<float>(lower);
  p.scale = static_cast<float>(p.num_bins / (bins.edges.back() - lower));
  const bool even = even_edges(bins);
  if (even && config.type == DataType::f32) p.accept_margin = f32_accept_margin(p.table, p.lower, p.scale);
  p.flags = (even ? histogram_flag_even : 0u) | (p.table.check_upper ? histogram_flag_check_upper : 0u) |
            (config.last_bin_closed ? histogram_flag_closed : 0u) |
            (p.num_bins <= kHistogramSharedBins ? histogram_flag_shared : 0u) |
            (indirect ? histogram_flag_indirect | (count_64bit ? histogram_flag_count64 : 0u) : 0u);
  p.max_workgroups = config.max_workgroups;
  p.counted = p.table.searchable == 0 ? 0 : count;
  p.status = indirect && status;
  return p;
}

std::vector<HistogramWindow> histogram_windows(const HistogramPlan& plan, uint64_t window_elements,
                                               const PipelineKey& key, uint32_t max_groups_x) {
  std::vector<HistogramWindow> windows;
  for (uint64_t start = 0; start < plan.counted || (start == 0 && plan.status); start += window_elements) {
    HistogramWindow w;
    w.start = start;
    w.len = std::min(window_elements, plan.counted - start);
    w.groups = histogram_groups(w.len, key, plan.max_workgroups, max_groups_x, plan.max_samples_per_invocation);
    windows.push_back(w);
  }
  return windows;
}

std::array<Param, histogram_param_words> histogram_params(const HistogramPlan& plan, const HistogramWindow& w,
                                                          uint64_t bound) {
  const uint32_t flags = plan.flags | (plan.status && w.start == 0 ? histogram_flag_status : 0u);
  auto word = [](uint64_t v) { return Param::word(static_cast<uint32_t>(v)); };
  return {word(w.len), Param::offset(0), Param::offset(1), Param::offset(2), word(plan.num_bins),
          word(std::max<uint32_t>(plan.table.searchable, 1)), word(flags), word(std::bit_cast<uint32_t>(plan.lower)),
          word(std::bit_cast<uint32_t>(plan.scale)), word(w.groups), Param::offset(3), word(w.start),
          word(w.start >> 32), word(bound), word(bound >> 32), Param::offset(4),
          word(std::bit_cast<uint32_t>(plan.accept_margin))};
}

Program histogram_program(const HistogramPlan& plan, const PipelineKey& key, bool accumulate, uint64_t bound,
                          uint32_t count_words, uint64_t window_elements, uint32_t max_groups_x) {
  Program program;
  program.buffer_names.assign(std::begin(histogram_buffer_names), std::end(histogram_buffer_names));
  if (!accumulate) program.fill(histogram_counts, 0, plan.counts_bytes());
  program.update(histogram_temp, 0, plan.table.words);
  program.barrier();
  // With a count in GPU memory the status word is written even when no sample can be counted.
  if (plan.dispatches_nothing()) return program;
  const uint32_t sbytes = plan.table.element_bytes;
  const Bind counts{histogram_counts, 0, plan.num_bins, plan.count_bytes};
  // No table when no edge is a sample value; the kernel then reads none.
  const Bind edges = plan.table.words.empty() ? counts : Bind{histogram_temp, 0, plan.table.edges(), sbytes};
  const Bind words = count_words ? Bind{histogram_count_words, 0, count_words, 4} : counts;  // unread
  const Bind status = plan.status ? Bind{histogram_status, 0, 1, 4} : counts;               // unwritten
  for (const HistogramWindow& w : histogram_windows(plan, window_elements, key, max_groups_x)) {
    program.barrier();  // windows add to the same counts
    cmd::Dispatch d;
    d.key = key;
    const Bind src = w.len ? Bind{histogram_input, w.start, w.len, sbytes} : counts;  // unread when empty
    d.bindings = {src, counts, edges, words, status};
    const auto params = histogram_params(plan, w, bound);
    d.params.assign(params.begin(), params.end());
    d.groups_x = w.groups;
    program.dispatch(std::move(d));
  }
  return program;
}

void check_histogram_overlaps(const HistogramRanges& r) {
  if (overlaps(r.temp, r.counts))
    throw Error(Errc::invalid_argument, "temp overlaps the counts; give them disjoint ranges");
  if (overlaps(r.input, r.counts))
    throw Error(Errc::invalid_argument, "the counts overlap the input samples; give them disjoint ranges");
  if (overlaps(r.input, r.temp))
    throw Error(Errc::invalid_argument, "temp overlaps the input samples; give them disjoint ranges");
  if (overlaps(r.count, r.counts))
    throw Error(Errc::invalid_argument, "count_from.buffer overlaps the counts; give them disjoint ranges");
  if (overlaps(r.status, r.counts) || overlaps(r.status, r.input))
    throw Error(Errc::invalid_argument, "count_from.status overlaps the counts or the input");
}

uint64_t histogram_sample_count(size_t bytes, DataType type) {
  const uint32_t sbytes = element_size(type);
  if (bytes % sbytes != 0)
    throw Error(Errc::invalid_argument, "histogram input of " + std::to_string(bytes) +
                                            " bytes is not a whole number of " + std::to_string(sbytes) +
                                            "-byte samples");
  return bytes / sbytes;
}

std::vector<uint64_t> widen_counts(std::span<const std::byte> counts, uint32_t num_bins, uint32_t count_bytes) {
  std::vector<uint64_t> out(num_bins, 0);
  for (uint32_t i = 0; i < num_bins; ++i)  // little-endian: the low bytes first
    std::memcpy(&out[i], counts.data() + size_t{i} * count_bytes, count_bytes);
  return out;
}

}  // namespace gpuscan::core
