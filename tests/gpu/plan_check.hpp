// Plan objects, one check set for both backends: every primitive's plan run on random host data against
// the CPU reference, a plan recorded into the caller's buffers, and the plan's own refusals. A backend
// instantiates it with a type B that gives:
//   template <class P> using Plan;           gpuscan::Plan or gpuscan::gl::Plan
//   static const auto& context();            its test context
//   static void check_clean();               fails the test on a validation / KHR_debug message
//   static std::vector<T> scan_by_record(plan, input, n)   records the plan into buffers it owns
// (tests/gpu/plan_test.cpp, tests/gl/gl_plan_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "gpu_test_support.hpp"  // fresh_seed, random_values
#include "gpuscan/plan.hpp"
#include "gpuscan/reference.hpp"
#include "gpuscan/sort_reference.hpp"

namespace gpuscan::test {

template <class B>
class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = fresh_seed();
    rng_.seed(seed_);
  }
  void TearDown() override { B::check_clean(); }

  // A count near a tile or recursion boundary of the default shapes (1024 and 4096 elements per tile), or
  // anywhere up to 3 · 2^16.
  size_t random_count() {
    static constexpr size_t edges[] = {0, 1, 2, 1023, 1024, 1025, 4095, 4096, 4097, 2 * 4096 + 1};
    if (rng_() % 3 == 0) return rng_() % (3 << 16);
    return edges[rng_() % std::size(edges)];
  }
  template <class T>
  static std::span<const std::byte> bytes(const std::vector<T>& v) {
    return std::as_bytes(std::span<const T>(v));
  }
  template <class T>
  static std::vector<T> as(const std::vector<std::byte>& b) {
    std::vector<T> out(b.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
    return out;
  }

  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

TYPED_TEST_SUITE_P(PlanTest);

// Scans of u32 and u64 under add, max and xor, either kind, with or without a carry-in.
TYPED_TEST_P(PlanTest, ScanRunMatchesReference) {
  for (int round = 0; round < 4; ++round) {
    const size_t n = this->random_count();
    const Op op = std::array{Op::add, Op::max, Op::bit_xor}[this->rng_() % 3];
    const ScanKind kind = this->rng_() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n) + ", op " +
                 std::string(to_string(op)) + (kind == ScanKind::inclusive ? ", inclusive" : ", exclusive"));
    const auto values = random_values<uint64_t>(n, this->rng_);
    const uint64_t carry = this->rng_();
    const bool with_carry = this->rng_() % 2;
    typename TypeParam::template Plan<primitive::Scan> plan(
        TypeParam::context(), primitive::Scan{.config = {.type = DataType::u64, .kind = kind, .op = op}},
        PlanLimits{.max_count = n + this->rng_() % 100});
    const auto out = plan.run({.values = this->bytes(values),
                               .initial_bits = with_carry ? std::optional<uint64_t>(carry) : std::nullopt});
    const auto want = cpu::scan<uint64_t>(values, kind, op, with_carry ? std::optional<uint64_t>(carry) : std::nullopt);
    EXPECT_EQ(this->template as<uint64_t>(out), want);

    std::vector<uint32_t> small(n);
    for (size_t i = 0; i < n; ++i) small[i] = static_cast<uint32_t>(values[i]);
    typename TypeParam::template Plan<primitive::Scan> plan32(
        TypeParam::context(), primitive::Scan{.config = {.type = DataType::u32, .kind = kind, .op = op}},
        PlanLimits{.max_count = n, .prepare = false});
    EXPECT_EQ(this->template as<uint32_t>(plan32.run({.values = this->bytes(small)})),
              cpu::scan<uint32_t>(small, kind, op));
  }
}

TYPED_TEST_P(PlanTest, ReduceRunMatchesReference) {
  for (int round = 0; round < 4; ++round) {
    const size_t n = this->random_count();
    const Op op = std::array{Op::add, Op::min, Op::bit_or}[this->rng_() % 3];
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n));
    const auto values = random_values<int32_t>(n, this->rng_);
    typename TypeParam::template Plan<primitive::Reduce> plan(
        TypeParam::context(), primitive::Reduce{.config = {.type = DataType::i32, .op = op}}, {.max_count = n});
    EXPECT_EQ(this->template as<int32_t>(plan.run({.values = this->bytes(values)})),
              std::vector<int32_t>{cpu::reduce<int32_t>(values, op)});
  }
}

TYPED_TEST_P(PlanTest, SegmentedScanRunMatchesReference) {
  for (int round = 0; round < 3; ++round) {
    const size_t n = this->random_count();
    const ScanKind kind = this->rng_() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n));
    const auto values = random_values<uint32_t>(n, this->rng_);
    std::vector<uint32_t> flags(n);
    const uint32_t every = 1 + this->rng_() % 500;
    for (auto& f : flags) f = this->rng_() % every == 0 ? static_cast<uint32_t>(this->rng_() | 1) : 0u;
    typename TypeParam::template Plan<primitive::SegmentedScan> plan(
        TypeParam::context(), primitive::SegmentedScan{.config = {.type = DataType::u32, .kind = kind}},
        {.max_count = n});
    const auto out = plan.run({.values = this->bytes(values), .heads = this->bytes(flags)});
    EXPECT_EQ(this->template as<uint32_t>(out),
              cpu::segmented_scan<uint32_t>(values, cpu::starts_from_flags(flags, n), kind));
  }
}

TYPED_TEST_P(PlanTest, SegmentedReduceRunMatchesReference) {
  for (int round = 0; round < 3; ++round) {
    const size_t n = this->random_count();
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n));
    const auto values = random_values<uint32_t>(n, this->rng_);
    std::vector<uint32_t> offsets = {0};
    while (offsets.back() < n) offsets.push_back(std::min<uint32_t>(n, offsets.back() + this->rng_() % 3000));
    if (this->rng_() % 2) offsets.push_back(static_cast<uint32_t>(n));  // an empty last segment
    typename TypeParam::template Plan<primitive::SegmentedReduce> plan(
        TypeParam::context(), primitive::SegmentedReduce{.config = {.type = DataType::u32, .op = Op::max}},
        {.max_count = n});
    const auto out = plan.run({.values = this->bytes(values), .offsets = offsets});
    EXPECT_EQ(this->template as<uint32_t>(out), cpu::segmented_reduce<uint32_t>(values, offsets, Op::max));
  }
}

// Selection and partition by a predicate and by flags.
TYPED_TEST_P(PlanTest, SelectRunMatchesReference) {
  for (int round = 0; round < 4; ++round) {
    const size_t n = this->random_count();
    const bool partition = this->rng_() % 2, flagged = this->rng_() % 2;
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n) +
                 (partition ? ", partition" : ", select") + (flagged ? " by flags" : " by a predicate"));
    const auto values = random_values<int32_t>(n, this->rng_);
    std::vector<uint32_t> flags(n);
    for (auto& f : flags) f = this->rng_() % 3 == 0 ? 1u : 0u;
    const int32_t bound = static_cast<int32_t>(this->rng_());
    const Predicate predicate = Predicate::greater(bound);
    std::vector<int32_t> kept, rejected;
    for (size_t i = 0; i < n; ++i)
      ((flagged ? flags[i] != 0 : values[i] > bound) ? kept : rejected).push_back(values[i]);
    typename TypeParam::template Plan<primitive::Select> plan(
        TypeParam::context(),
        primitive::Select{.config = {.type = DataType::i32},
                          .flagged = flagged,
                          .predicate = flagged ? PredicateKind::nonzero : PredicateKind::greater,
                          .partition = partition},
        {.max_count = n});
    const auto out = plan.run({.values = this->bytes(values), .flags = this->bytes(flags), .predicate = predicate});
    EXPECT_EQ(out.kept, kept.size());
    std::vector<int32_t> want = kept;
    if (partition) want.insert(want.end(), rejected.begin(), rejected.end());
    EXPECT_EQ(this->template as<int32_t>(out.values), want);
  }
}

TYPED_TEST_P(PlanTest, RunLengthRunMatchesReference) {
  for (int round = 0; round < 3; ++round) {
    const size_t n = this->random_count();
    const bool non_trivial = this->rng_() % 2;
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n));
    std::vector<uint32_t> values(n);
    const uint32_t alphabet = 2 + this->rng_() % 4;
    for (auto& v : values) v = static_cast<uint32_t>(this->rng_() % alphabet);
    typename TypeParam::template Plan<primitive::RunLength> plan(
        TypeParam::context(), primitive::RunLength{.config = {.type = DataType::u32}, .non_trivial = non_trivial},
        {.max_count = n});
    const auto out = plan.run({.values = this->bytes(values)});
    const cpu::Runs<uint32_t> want = cpu::runs<uint32_t>(values);
    if (non_trivial) {
      std::vector<uint32_t> starts, lengths;
      for (size_t r = 0; r < want.lengths.size(); ++r)
        if (want.lengths[r] > 1) {
          starts.push_back(want.starts[r]);
          lengths.push_back(want.lengths[r]);
        }
      EXPECT_EQ(out.offsets, starts);
      EXPECT_EQ(out.lengths, lengths);
    } else {
      EXPECT_EQ(this->template as<uint32_t>(out.values), want.values);
      EXPECT_EQ(out.lengths, want.lengths);
    }
  }
}

// Keys, pairs and argsort, either order.
TYPED_TEST_P(PlanTest, SortRunMatchesReference) {
  for (int round = 0; round < 3; ++round) {
    const size_t n = this->random_count();
    const bool descending = this->rng_() % 2;
    const int form = static_cast<int>(this->rng_() % 3);  // keys, pairs, indices
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n) + ", form " + std::to_string(form));
    auto keys = random_values<uint32_t>(n, this->rng_);
    for (auto& k : keys) k %= 1000;  // ties, whose input order must hold
    const auto values = random_values<uint32_t>(n, this->rng_);
    typename TypeParam::template Plan<primitive::Sort> plan(
        TypeParam::context(),
        primitive::Sort{.config = {.key_type = DataType::u32, .value_bytes = form ? 4u : 0u, .descending = descending}},
        {.max_count = n});
    const auto out = plan.run({.keys = this->bytes(keys), .values = form == 1 ? this->bytes(values) : std::span<const std::byte>(),
                               .indices = form == 2});
    const std::vector<uint32_t> order = cpu::stable_sort_order<uint32_t>(keys, descending);
    std::vector<uint32_t> want_keys(n), want_values(n);
    for (size_t i = 0; i < n; ++i) {
      want_keys[i] = keys[order[i]];
      want_values[i] = form == 1 ? values[order[i]] : order[i];
    }
    EXPECT_EQ(this->template as<uint32_t>(out.keys), want_keys);
    if (form) EXPECT_EQ(this->template as<uint32_t>(out.values), want_values);
    else EXPECT_TRUE(out.values.empty());
  }
}

TYPED_TEST_P(PlanTest, HistogramRunMatchesReference) {
  for (int round = 0; round < 3; ++round) {
    const size_t n = this->random_count();
    const uint32_t bins = 1 + static_cast<uint32_t>(this->rng_() % 300);
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n) + ", bins " + std::to_string(bins));
    auto samples = random_values<uint32_t>(n, this->rng_);
    for (auto& s : samples) s %= 1200;
    const HistogramBins edges = HistogramBins::even(bins, 100.0, 1100.0);
    typename TypeParam::template Plan<primitive::Histogram> plan(
        TypeParam::context(), primitive::Histogram{.config = {.type = DataType::u32}, .bins = edges}, {.max_count = n});
    EXPECT_EQ(plan.run({.samples = this->bytes(samples)}), cpu::histogram<uint32_t>(samples, edges.edges, false));
  }
}

// A plan recorded into the caller's own buffers (poisoned first), twice with different counts.
TYPED_TEST_P(PlanTest, RecordsIntoCallersBuffers) {
  const size_t max = 5000 + this->rng_() % 5000;
  typename TypeParam::template Plan<primitive::Scan> plan(TypeParam::context(), primitive::Scan{}, {.max_count = max});
  for (const size_t n : {max, static_cast<size_t>(this->rng_() % max)}) {
    SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", n " + std::to_string(n));
    const auto values = random_values<uint32_t>(n, this->rng_);
    EXPECT_EQ(TypeParam::scan_by_record(plan, values), cpu::scan<uint32_t>(values, ScanKind::exclusive));
  }
}

// What a plan refuses: more than its max_count, a count_from it was not made for, a predicate of another
// kind; each as Errc::invalid_argument, before anything runs.
TYPED_TEST_P(PlanTest, RefusesWhatItWasNotMadeFor) {
  const std::vector<uint32_t> values(100, 7u);
  typename TypeParam::template Plan<primitive::Scan> scan(TypeParam::context(), primitive::Scan{}, {.max_count = 99});
  try {
    scan.run({.values = this->bytes(values)});
    ADD_FAILURE() << "a run of 100 elements on a plan for 99 did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("max_count 99"), std::string::npos) << e.what();
  }
  typename TypeParam::template Plan<primitive::Scan> indirect(TypeParam::context(), primitive::Scan{},
                                                              {.max_count = 100, .count_from_gpu = true});
  try {
    indirect.run({.values = this->bytes(values)});
    ADD_FAILURE() << "run() on a count_from_gpu plan did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
  }
  typename TypeParam::template Plan<primitive::Select> select(
      TypeParam::context(), primitive::Select{.predicate = PredicateKind::greater}, {.max_count = 100});
  try {
    select.run({.values = this->bytes(values), .predicate = Predicate::less(3u)});
    ADD_FAILURE() << "a less predicate on a plan for greater did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("made for greater"), std::string::npos) << e.what();
  }
  // Its temp requirements are the primitive's own for max_count, and it lists its passes.
  EXPECT_FALSE(scan.describe(99).empty());
  EXPECT_GE(indirect.temp_requirements().size, scan.temp_requirements().size);
}

// Every plan lists the passes of a record: scans, reductions, segmented scans, compaction and sorts as
// their plans print them; the histogram, run-length encoding and the segmented reduction as the
// dispatches a record would make, which stay those of the count given (never more than max_count asks).
TYPED_TEST_P(PlanTest, DescribesEveryPrimitive) {
  const PlanLimits limits{.max_count = 1u << 20, .prepare = false};
  const auto& ctx = TypeParam::context();
  const size_t count = 1 + this->rng_() % (1u << 20);
  SCOPED_TRACE("seed " + std::to_string(this->seed_) + ", count " + std::to_string(count));
  using namespace primitive;
  const std::string listed[] = {
      typename TypeParam::template Plan<Histogram>(ctx, Histogram{.bins = HistogramBins::even(10, 0, 10)}, limits)
          .describe(count),
      typename TypeParam::template Plan<RunLength>(ctx, RunLength{}, limits).describe(count),
      typename TypeParam::template Plan<RunLength>(ctx, RunLength{.non_trivial = true}, limits).describe(count),
      typename TypeParam::template Plan<SegmentedReduce>(ctx, SegmentedReduce{}, limits).describe(count)};
  for (const std::string& text : listed) EXPECT_NE(text.find("  dispatch "), std::string::npos) << text;
  EXPECT_NE(listed[0].find("histogram"), std::string::npos) << listed[0];
  EXPECT_NE(listed[1].find("run_lengths"), std::string::npos) << listed[1];
  EXPECT_NE(listed[3].find("seg_offsets"), std::string::npos) << listed[3];
  // Fills and updates name the primitive's buffers: the histogram zeroes its counts.
  EXPECT_NE(listed[0].find(" bytes of counts with 0\n"), std::string::npos) << listed[0];
  for (const std::string& text : listed) EXPECT_EQ(text.find(" of buffer "), std::string::npos) << text;
  // A small count lists a single tile's work: one workgroup for the histogram.
  const std::string one = typename TypeParam::template Plan<Histogram>(
                              ctx, Histogram{.bins = HistogramBins::even(10, 0, 10)}, limits)
                              .describe(1);
  EXPECT_NE(one.find(", 1 group\n"), std::string::npos) << one;
  for (const std::string& text :
       {typename TypeParam::template Plan<Scan>(ctx, Scan{}, limits).describe(count),
        typename TypeParam::template Plan<Reduce>(ctx, Reduce{}, limits).describe(count),
        typename TypeParam::template Plan<SegmentedScan>(ctx, SegmentedScan{}, limits).describe(count),
        typename TypeParam::template Plan<Select>(ctx, Select{}, limits).describe(count),
        typename TypeParam::template Plan<Sort>(ctx, Sort{}, limits).describe(count)})
    EXPECT_FALSE(text.empty());
}

REGISTER_TYPED_TEST_SUITE_P(PlanTest, DescribesEveryPrimitive, ScanRunMatchesReference, ReduceRunMatchesReference,
                            SegmentedScanRunMatchesReference, SegmentedReduceRunMatchesReference,
                            SelectRunMatchesReference, RunLengthRunMatchesReference, SortRunMatchesReference,
                            HistogramRunMatchesReference, RecordsIntoCallersBuffers, RefusesWhatItWasNotMadeFor);

}  // namespace gpuscan::test
