// What gpuscan::Plan and gpuscan::gl::Plan check alike: a description against the plan's limits when it is
// made, a record's buffers against them, and the size of the elements a run on host data takes.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "gpuscan/error.hpp"
#include "gpuscan/plan.hpp"

namespace gpuscan::core {

inline const char* primitive_name(const primitive::Scan&) { return "a scan"; }
inline const char* primitive_name(const primitive::Reduce&) { return "a reduction"; }
inline const char* primitive_name(const primitive::SegmentedScan&) { return "a segmented scan"; }
inline const char* primitive_name(const primitive::SegmentedScanByOffsets&) { return "a segmented scan by offsets"; }
inline const char* primitive_name(const primitive::SegmentedReduce&) { return "a segmented reduction"; }
inline const char* primitive_name(const primitive::Select&) { return "a compaction"; }
inline const char* primitive_name(const primitive::RunLength&) { return "a run-length encoding"; }
inline const char* primitive_name(const primitive::Sort&) { return "a sort"; }
inline const char* primitive_name(const primitive::Histogram&) { return "a histogram"; }

// The limits of a plan made for one call (the free record functions and the calls on host data): sized
// for that call's count, building each kernel at the first record that needs it.
inline gpuscan::PlanLimits one_call(uint64_t count, bool count_from_gpu = false, bool in_place = false) {
  return {.max_count = count, .count_from_gpu = count_from_gpu, .in_place = in_place, .prepare = false};
}

// When a plan is made: `counts_from_gpu` says whether the backend takes this primitive's count from GPU
// memory (Errc::unsupported for PlanLimits::count_from_gpu otherwise, `api` naming the backend).
template <class P>
void check_description(const P& p, const gpuscan::PlanLimits& limits, bool counts_from_gpu, const char* api) {
  if (limits.count_from_gpu && !counts_from_gpu)
    throw Error(Errc::unsupported, std::string(primitive_name(p)) + " on " + api + " takes no count from GPU memory");
  if constexpr (std::is_same_v<P, primitive::Select>) {
    if (p.flagged && p.predicate != PredicateKind::nonzero)
      throw Error(Errc::invalid_argument, "a compaction by flags has no predicate (leave Select::predicate nonzero)");
  }
}

// At every record: the count within the plan's limit, count_from as the plan was made, the predicate of
// the plan's kind.
template <class P, class Buffers>
void check_record(const P& p, const gpuscan::PlanLimits& limits, const Buffers& b) {
  if (b.count > limits.max_count)
    throw Error(Errc::invalid_argument, std::string(primitive_name(p)) + " of " + std::to_string(b.count) +
                                            " elements on a plan made for at most " + std::to_string(limits.max_count));
  bool has_count_from = false;
  if constexpr (requires { b.count_from; }) has_count_from = b.count_from.has_value();
  if (has_count_from != limits.count_from_gpu)
    throw Error(Errc::invalid_argument, limits.count_from_gpu
                                            ? "this plan takes its count from GPU memory: give Buffers::count_from"
                                            : "count_from on a plan made without PlanLimits::count_from_gpu");
  if constexpr (std::is_same_v<P, primitive::Select>) {
    if (!p.flagged && b.predicate.kind != p.predicate)
      throw Error(Errc::invalid_argument, "a " + std::string(to_string(b.predicate.kind)) +
                                              " predicate on a plan made for " + std::string(to_string(p.predicate)));
  }
}

// Before a run on host data.
inline void check_run(const gpuscan::PlanLimits& limits) {
  if (limits.count_from_gpu)
    throw Error(Errc::invalid_argument, "run() takes its count from the input: use a plan without count_from_gpu");
}

// The size of one element of a run's input; `custom_bytes(op)` compiles a custom operator for its size.
template <class P, class CustomBytes>
uint32_t input_element_bytes(const P& p, CustomBytes&& custom_bytes) {
  if constexpr (std::is_same_v<P, primitive::Scan>)
    return p.config.custom_op ? custom_bytes(*p.config.custom_op) : element_size(p.config.type);
  else if constexpr (std::is_same_v<P, primitive::Sort>) return element_size(p.config.key_type);
  else return element_size(p.config.type);
}

// A record's buffers for `count` elements over stand-in views, for a plan's dry runs (core/dry_run.hpp):
// every view of Buffers is `view(i)` with its own i from 1 on, a by-offsets primitive gets one segment
// per 1024 values, a compaction the plan's predicate kind, a count_from where the plan takes one.
template <class Buffers, class P, class MakeView>
Buffers stand_in_buffers(const P& p, const gpuscan::PlanLimits& limits, uint64_t count, MakeView&& view) {
  Buffers b;
  b.count = count;
  int next = 1;
  auto set = [&](auto& v) { v = view(next++); };
  if constexpr (requires { b.input; }) set(b.input);
  if constexpr (requires { b.output; }) set(b.output);
  if constexpr (requires { b.temp; }) set(b.temp);
  if constexpr (requires { b.heads; }) set(b.heads);
  if constexpr (requires { b.offsets; }) set(b.offsets);
  if constexpr (requires { b.flags; }) set(b.flags);
  if constexpr (requires { b.count_out; }) set(b.count_out);
  if constexpr (requires { b.values; }) set(b.values);
  if constexpr (requires { b.lengths; }) set(b.lengths);
  if constexpr (requires { b.counts; }) set(b.counts);
  if constexpr (requires { b.keys_in; }) {
    set(b.keys_in);
    set(b.keys_out);
    if (p.config.value_bytes) {
      set(b.values_in);
      set(b.values_out);
    }
  }
  if constexpr (requires { b.segments; }) b.segments = count / 1024 + 1;
  if constexpr (std::is_same_v<P, primitive::Select>) b.predicate.kind = p.predicate;
  if constexpr (requires { b.count_from; }) {
    if (limits.count_from_gpu) {
      b.count_from.emplace();
      set(b.count_from->buffer);
    }
  }
  return b;
}

}  // namespace gpuscan::core
