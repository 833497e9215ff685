// Stream compaction (include/gpuscan/compact.hpp) against std::copy_if: every predicate family and the
// flags, densities 0%, 1%, 50%, 99% and 100%, sizes around tile (and tile-count scan) boundaries, the
// ballot and the shared-memory path, the three-pass and the single-pass plan (the latter also with its
// look-back fallback forced), u32 / i32 / f32 / u64 / i64 / f64 -- under the validation layers -- plus
// misuse. NaN and -0 under every predicate for f32 and f64.
// partition / partition_flagged the same way (three-pass), against std::stable_partition. Run-length
// encoding (encode and non-trivial runs) against the runs the host finds.
#include "compact_check.hpp"
#include "core/scan_shape.hpp"
#include "core/tuning.hpp"

namespace gpuscan::test {
namespace {

class CompactTest : public CompactChecks<Context, GpuTest> {
 protected:
  CompactTest() : CompactChecks(shared_context()) { shared_memory_bytes = ctx.device_info().max_shared_memory_bytes; }
  void SetUp() override {
    if (GetParam().path == CompactPath::ballot && !ctx.device_info().has_subgroup_ballot())
      GTEST_SKIP() << "no subgroup ballots";
    if (single_pass() && !ctx.single_pass_available()) GTEST_SKIP() << "no single-pass look-back on this device";
    const DataType type = GetParam().type;
    if (((type == DataType::u64 || type == DataType::i64) && !ctx.device_info().shader_int64) ||
        (type == DataType::f64 && !ctx.device_info().shader_float64))
      GTEST_SKIP() << "no shaderInt64 / shaderFloat64 for " << to_string(type);
  }

  // unique_by_key and partition_flagged with keys as heads: u32 and u64 keys in runs (of equal keys from a
  // small alphabet, so a run may continue the one before), values of the suite's type, against the first of
  // each run of equal keys (Vulkan only: OpenGL takes u32 flags).
  template <class Key, class T>
  void check_by_key(size_t n, uint32_t max_run, const CompactConfig& cfg) {
    const std::vector<Key> alphabet = random_values<Key>(5, rng);
    std::vector<Key> keys;
    while (keys.size() < n) keys.insert(keys.end(), std::min<size_t>(1 + rng() % max_run, n - keys.size()),
                                        alphabet[rng() % alphabet.size()]);
    const std::vector<T> values = random_values<T>(n, rng);
    std::vector<Key> want_keys;
    std::vector<T> want_values, repeats;
    for (size_t i = 0; i < n; ++i) {
      const bool first = i == 0 || keys[i] != keys[i - 1];
      if (first) want_keys.push_back(keys[i]), want_values.push_back(values[i]);
      else repeats.push_back(values[i]);
    }
    std::ostringstream what;
    what << "unique_by_key " << sizeof(Key) * 8 << "-bit keys n=" << n << " runs up to " << max_run
         << " W=" << cfg.workgroup_size << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    const auto [got_keys, got_values] =
        unique_by_key(ctx, std::span<const Key>(keys), std::span<const T>(values), cfg);
    expect_same(got_keys, want_keys, what.str());
    expect_same(got_values, want_values, what.str());
    if (single_pass() || n == 0) return;  // partitions run three-pass only
    // The same heads through the recording call: partition_flagged with SelectArgs::flags_kind.
    HostBuffer<T> in(ctx, n * sizeof(T)), out(ctx, n * sizeof(T));
    HostBuffer<Key> key_buffer(ctx, n * sizeof(Key));
    HostBuffer<uint32_t> count(ctx, 4);
    const TempRequirements req = compact_temp_requirements(ctx, n, cfg);
    HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
    std::copy(values.begin(), values.end(), in.data());
    std::copy(keys.begin(), keys.end(), key_buffer.data());
    poison(out.data(), n * sizeof(T));
    SelectArgs args{cfg, n, in.view(), key_buffer.view(), {}, out.view(), count.view(), temp.view()};
    args.config.type = data_type_of<T>::value;
    args.flags_kind = sizeof(Key) == 4 ? SegmentHeads::keys_u32 : SegmentHeads::keys_u64;
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_partition_flagged(ctx, cmd, args); });
    EXPECT_EQ(count.data()[0], want_values.size()) << what.str();
    want_values.insert(want_values.end(), repeats.begin(), repeats.end());
    expect_same(std::vector<T>(out.data(), out.data() + n), want_values, "partition_flagged: " + what.str());
  }

  // Run-length encoding (gpuscan/vulkan/run_length.hpp) of runs_of data against the runs the host finds
  // with Predicate::run_start's rule: the convenience calls, then the recording call with the caller's
  // offsets, poisoned outputs whose tails past the runs must stay untouched.
  template <class T>
  void check_run_lengths(size_t n, uint32_t max_run, const CompactConfig& cfg) {
    const std::vector<T> in = runs_of<T>(n, max_run);
    std::vector<T> want_values;
    std::vector<uint32_t> want_starts, want_lengths, trivial_offsets, trivial_lengths;
    for (size_t i = 0; i < n; ++i) {
      if (Predicate::run_start().holds(in[i], i ? &in[i - 1] : nullptr)) {
        want_values.push_back(in[i]);
        want_starts.push_back(static_cast<uint32_t>(i));
        want_lengths.push_back(0);
      }
      ++want_lengths.back();
    }
    for (size_t r = 0; r < want_lengths.size(); ++r)
      if (want_lengths[r] > 1) trivial_offsets.push_back(want_starts[r]), trivial_lengths.push_back(want_lengths[r]);
    std::ostringstream what;
    what << "run-length n=" << n << " runs up to " << max_run << " W=" << cfg.workgroup_size
         << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    const RunLengthResult<T> got = run_length_encode(ctx, std::span<const T>(in), cfg);
    expect_same(got.values, want_values, "encode values: " + what.str());
    expect_same(got.lengths, want_lengths, "encode lengths: " + what.str());
    const NonTrivialRuns runs = non_trivial_runs(ctx, std::span<const T>(in), cfg);
    expect_same(runs.offsets, trivial_offsets, "non-trivial offsets: " + what.str());
    expect_same(runs.lengths, trivial_lengths, "non-trivial lengths: " + what.str());
    if (n == 0) return;
    // The recording call, with offsets, every output poisoned and one element longer than the worst case.
    HostBuffer<T> input(ctx, n * sizeof(T)), values(ctx, (n + 1) * sizeof(T));
    HostBuffer<uint32_t> lengths(ctx, (n + 1) * 4), offsets(ctx, (n + 1) * 4), count(ctx, 4);
    CompactConfig c = cfg;
    c.type = data_type_of<T>::value;
    const TempRequirements req = run_length_temp_requirements(ctx, n, c);
    HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
    std::copy(in.begin(), in.end(), input.data());
    poison(values.data(), (n + 1) * sizeof(T));
    poison(lengths.data(), (n + 1) * 4);
    poison(offsets.data(), (n + 1) * 4);
    poison(count.data(), 4);
    poison(temp.data(), req.size);
    RunLengthArgs args;
    args.config = c;
    args.count = n;
    args.input = input.view();
    args.values = values.view();
    args.lengths = lengths.view();
    args.offsets = offsets.view();
    args.count_out = count.view();
    args.temp = temp.view();
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      record_run_length_encode(ctx, cmd, args);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    const size_t r = want_values.size();
    ASSERT_EQ(count.data()[0], r) << what.str();
    expect_same(std::vector<T>(values.data(), values.data() + r), want_values, "record values: " + what.str());
    expect_same(std::vector<uint32_t>(lengths.data(), lengths.data() + r), want_lengths, "record lengths: " + what.str());
    expect_same(std::vector<uint32_t>(offsets.data(), offsets.data() + r), want_starts, "record offsets: " + what.str());
    EXPECT_EQ(lengths.data()[r], 0xA5A5A5A5u) << "lengths past the runs written: " << what.str();
    EXPECT_EQ(offsets.data()[r], 0xA5A5A5A5u) << "offsets past the runs written: " << what.str();
  }
};

COMPACT_TESTS(CompactTest)

TEST_P(CompactTest, UniqueByKeyMatchesTheFirstOfEachRun) {
  size_t round = 0;
  for_type([&](auto v) {
    using T = decltype(v);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{127}, size_t{129}, size_t{1000}, size_t{129 * 128 + 1}})
      for (const uint32_t max_run : {1u, 4u, 300u}) {
        const CompactConfig cfg = round++ % 2 ? config() : config(0, 4);
        check_by_key<uint32_t, T>(n, max_run, cfg);
        // u64 keys: their unique stages 8-byte elements, so a K that fits 4-byte values may not (lavapipe).
        CompactConfig key_cfg = cfg;
        const core::TileShape shape{cfg.workgroup_size ? cfg.workgroup_size : core::default_workgroup_size,
                                    cfg.vectors_per_lane};
        if (single_pass() && core::compact_single_pass_shared_bytes(shape, 8) > shared_memory_bytes)
          key_cfg.vectors_per_lane /= 2;
        if (ctx.device_info().shader_int64) check_by_key<uint64_t, T>(n, max_run, key_cfg);
      }
  });
}

TEST_P(CompactTest, RunLengthEncodeMatchesTheRuns) {
  size_t round = 0;
  for_type([&](auto v) {
    using T = decltype(v);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{127}, size_t{128}, size_t{129}, size_t{1000},
                           size_t{129 * 128 + 1}})
      for (const uint32_t max_run : {1u, 2u, 5u, 300u})
        check_run_lengths<T>(n, max_run, round++ % 2 ? config() : config(0, 4));
    check_run_lengths<T>(5000, 5000, config());  // one run, or a few
  });
}

constexpr CompactAlgorithm three = CompactAlgorithm::three_pass, single = CompactAlgorithm::single_pass;
INSTANTIATE_TEST_SUITE_P(All, CompactTest,
                         ::testing::Values(Param{DataType::u32, CompactPath::ballot, three},
                                           Param{DataType::u32, CompactPath::ballot, single},
                                           Param{DataType::u32, CompactPath::shared_memory, three},
                                           Param{DataType::i32, CompactPath::ballot, three},
                                           Param{DataType::i32, CompactPath::ballot, single},
                                           Param{DataType::i32, CompactPath::shared_memory, three},
                                           Param{DataType::f32, CompactPath::ballot, three},
                                           Param{DataType::f32, CompactPath::ballot, single},
                                           Param{DataType::f32, CompactPath::shared_memory, three},
                                           Param{DataType::u64, CompactPath::ballot, three},
                                           Param{DataType::u64, CompactPath::ballot, single},
                                           Param{DataType::u64, CompactPath::shared_memory, three},
                                           Param{DataType::i64, CompactPath::ballot, three},
                                           Param{DataType::i64, CompactPath::ballot, single},
                                           Param{DataType::i64, CompactPath::shared_memory, three},
                                           Param{DataType::f64, CompactPath::ballot, three},
                                           Param{DataType::f64, CompactPath::ballot, single},
                                           Param{DataType::f64, CompactPath::shared_memory, three}),
                         param_name);

class CompactSinglePassTest : public CompactTest {};

TEST_P(CompactSinglePassTest, ForcedFallback) {
  for_type([&](auto t) { forced_fallback<decltype(t)>(); });
}

TEST_P(CompactSinglePassTest, SeveralTilesPerWorkgroup) {
  for_type([&](auto t) { several_tiles_per_workgroup<decltype(t)>(); });
}

INSTANTIATE_TEST_SUITE_P(All, CompactSinglePassTest,
                         ::testing::Values(Param{DataType::u32, CompactPath::ballot, single},
                                           Param{DataType::i32, CompactPath::ballot, single},
                                           Param{DataType::f32, CompactPath::ballot, single},
                                           Param{DataType::u64, CompactPath::ballot, single},
                                           Param{DataType::f64, CompactPath::ballot, single}),
                         param_name);

// The recording API with element offsets that are not binding-aligned: output past the kept elements
// is left alone and the count lands at its offset.
class CompactRecordTest : public GpuTest {
 protected:
  const Context& ctx = shared_context();
};

// Whether `v` still holds poison()'s bytes.
template <class T>
bool poisoned(T v) {
  T p;
  poison(&p, sizeof p);
  return Predicate::bits(v) == Predicate::bits(p);
}

// The recording calls of element type T (signed: the predicate is v < 0) at element offsets: the input
// at `in_at` (2: 16-byte aligned for 8-byte elements, so their vector loads run; 3: element by element),
// the output at 5, the count at word 2; poisoned output and count around what is written.
template <class T>
void record_at_offsets(const Context& ctx, bool partition, size_t in_at) {
  static_assert(std::is_signed_v<T>);
  const DataType type = data_type_of<T>::value;
  for (auto [path, algorithm] : {std::pair{CompactPath::ballot, CompactAlgorithm::single_pass},
                                 std::pair{CompactPath::ballot, CompactAlgorithm::three_pass},
                                 std::pair{CompactPath::shared_memory, CompactAlgorithm::three_pass}}) {
    if (path == CompactPath::ballot && !ctx.device_info().has_subgroup_ballot()) continue;
    if (algorithm == CompactAlgorithm::single_pass && (partition || !ctx.single_pass_available())) continue;
    const size_t n = 1000;
    std::mt19937_64 rng(fresh_seed());
    HostBuffer<T> in(ctx, (n + in_at) * sizeof(T)), out(ctx, (n + 7) * sizeof(T));
    HostBuffer<uint32_t> count(ctx, 16);
    const CompactConfig cfg{type, path, 32, 2, algorithm};
    const TempRequirements req = compact_temp_requirements(ctx, n, cfg);
    HostBuffer<uint32_t> temp(ctx, req.size + req.alignment, req.usage);
    const std::vector<T> values = random_values<T>(n, rng);
    std::memcpy(in.data() + in_at, values.data(), n * sizeof(T));
    poison(out.data(), (n + 7) * sizeof(T));
    poison(count.data(), 16);
    const SelectArgs a{cfg, n, in.view(in_at * sizeof(T)), {}, Predicate::less<T>(T(0)), out.view(5 * sizeof(T)),
                       count.view(8), temp.view(req.alignment)};
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      partition ? record_partition_if(ctx, cmd, a) : record_select_if(ctx, cmd, a);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    const auto negative = [](T v) { return v < T(0); };
    std::vector<T> want;
    if (partition) {
      want = values;
      want.resize(std::stable_partition(want.begin(), want.end(), negative) - want.begin());
      std::copy_if(values.begin(), values.end(), std::back_inserter(want), [&](T v) { return !negative(v); });
    } else {
      std::copy_if(values.begin(), values.end(), std::back_inserter(want), negative);
    }
    const std::string what = std::string(to_string(type)) + " " + std::string(to_string(path)) + " " +
                             std::string(to_string(algorithm)) + " input at " + std::to_string(in_at);
    ASSERT_EQ(count.data()[2], static_cast<uint32_t>(std::count_if(values.begin(), values.end(), negative))) << what;
    EXPECT_EQ(count.data()[1], 0xA5A5A5A5u) << what;
    EXPECT_EQ(count.data()[3], 0xA5A5A5A5u) << what;
    EXPECT_TRUE(std::equal(want.begin(), want.end(), out.data() + 5)) << what;
    for (size_t i = 0; i < n + 7; ++i)
      if (i < 5 || i >= 5 + want.size()) ASSERT_TRUE(poisoned(out.data()[i])) << what << ": element " << i;
  }
}

TEST_F(CompactRecordTest, OffsetsCountBufferAndUntouchedTail) {
  for (const size_t in_at : {size_t{2}, size_t{3}}) {
    record_at_offsets<int32_t>(ctx, false, in_at);
    if (ctx.device_info().shader_int64) record_at_offsets<int64_t>(ctx, false, in_at);
    if (ctx.device_info().shader_float64) record_at_offsets<double>(ctx, false, in_at);
  }
}

TEST_F(CompactRecordTest, PartitionOffsetsCountBufferAndTail) {
  for (const size_t in_at : {size_t{2}, size_t{3}}) {
    record_at_offsets<int32_t>(ctx, true, in_at);
    if (ctx.device_info().shader_int64) record_at_offsets<int64_t>(ctx, true, in_at);
    if (ctx.device_info().shader_float64) record_at_offsets<double>(ctx, true, in_at);
  }
}

// Values at a vector boundary, flags not: the ballot path must leave its 16-byte loads for both.
TEST_F(CompactRecordTest, FlagsOffNotOnAVectorBoundary) {
  const size_t n = 3001;
  std::mt19937_64 rng(fresh_seed());
  const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
  HostBuffer<uint32_t> in(ctx, n * 4), flags(ctx, (n + 1) * 4), out(ctx, n * 4), count(ctx, 4);
  std::memcpy(in.data(), values.data(), n * 4);
  std::vector<uint32_t> kept_values, rejected;
  for (size_t i = 0; i < n; ++i) {
    flags.data()[i + 1] = rng() % 3 == 0 ? static_cast<uint32_t>(rng() | 1u) : 0u;
    (flags.data()[i + 1] ? kept_values : rejected).push_back(values[i]);
  }
  for (auto [path, algorithm] : {std::pair{CompactPath::ballot, CompactAlgorithm::single_pass},
                                 std::pair{CompactPath::ballot, CompactAlgorithm::three_pass},
                                 std::pair{CompactPath::shared_memory, CompactAlgorithm::three_pass}})
    for (bool partitioned : {false, true}) {
      if (path == CompactPath::ballot && !ctx.device_info().has_subgroup_ballot()) continue;
      if (algorithm == CompactAlgorithm::single_pass && (partitioned || !ctx.single_pass_available())) continue;
      const CompactConfig cfg{DataType::u32, path, 64, 2, algorithm};
      const TempRequirements req = compact_temp_requirements(ctx, n, cfg);
      HostBuffer<uint32_t> temp(ctx, req.size, req.usage);
      poison(out.data(), n * 4);
      poison(count.data(), 4);
      SelectArgs a{cfg, n, in.view(), flags.view(4), {}, out.view(), count.view(), temp.view()};
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
        if (partitioned) record_partition_flagged(ctx, cmd, a);
        else record_select_flagged(ctx, cmd, a);
        vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      });
      const std::string what = std::string(to_string(path)) + " " + std::string(to_string(algorithm)) +
                               (partitioned ? " partition" : " select");
      ASSERT_EQ(count.data()[0], kept_values.size()) << what;
      EXPECT_TRUE(std::equal(kept_values.begin(), kept_values.end(), out.data())) << what;
      if (partitioned) EXPECT_TRUE(std::equal(rejected.begin(), rejected.end(), out.data() + kept_values.size())) << what;
    }
}

TEST_F(CompactRecordTest, PartitionEmptyInput) {
  HostBuffer<uint32_t> count(ctx, 4);
  poison(count.data(), 4);
  SelectArgs a;
  a.config.workgroup_size = 32;
  a.count_out = count.view();
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    record_partition_if(ctx, cmd, a);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  EXPECT_EQ(count.data()[0], 0u);
  const PartitionResult<float> r = partition(ctx, std::span<const float>(), Predicate::nonzero());
  EXPECT_TRUE(r.values.empty());
  EXPECT_EQ(r.kept, 0u);
}

TEST_F(CompactRecordTest, EmptyInputWritesZeroCount) {
  HostBuffer<uint32_t> count(ctx, 4);
  poison(count.data(), 4);
  SelectArgs a;
  a.config.workgroup_size = 32;
  a.count_out = count.view();
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    record_select_flagged(ctx, cmd, a);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  EXPECT_EQ(count.data()[0], 0u);
  EXPECT_TRUE(select_if(ctx, std::span<const float>(), Predicate::nonzero()).empty());
}

// A grid capped at 3 workgroups per row: the 130 tiles run as a 44 x 3 grid, its last two workgroups past
// the end, and the counts' scan runs on two-dimensional grids too.
TEST_F(CompactRecordTest, TwoDimensionalGrids) {
  TestHooks hooks;
  hooks.max_workgroup_count_x = 3;
  const Context capped = make_validated_context({}, hooks);
  std::mt19937_64 rng(fresh_seed());
  const size_t n = 129 * 128 + 1;
  const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
  std::vector<uint32_t> flags(n);
  for (auto& f : flags) f = rng() % 3 == 0;
  std::vector<uint32_t> want;
  for (size_t i = 0; i < n; ++i)
    if (flags[i]) want.push_back(values[i]);
  for (CompactPath path : {CompactPath::ballot, CompactPath::shared_memory}) {
    if (path == CompactPath::ballot && !capped.device_info().has_subgroup_ballot()) continue;
    const CompactConfig cfg{DataType::u32, path, 32, 1};
    EXPECT_EQ(select_flagged(capped, std::span<const uint32_t>(values), std::span<const uint32_t>(flags), cfg), want)
        << to_string(path);
    std::vector<uint32_t> odd;
    std::copy_if(values.begin(), values.end(), std::back_inserter(odd), [](uint32_t v) { return v & 1u; });
    EXPECT_EQ(select_if(capped, std::span<const uint32_t>(values), Predicate::bits_set(1u), cfg), odd)
        << to_string(path);
    std::vector<uint32_t> parted = values;
    const size_t kept =
        std::stable_partition(parted.begin(), parted.end(), [](uint32_t v) { return v & 1u; }) - parted.begin();
    const PartitionResult<uint32_t> got =
        partition(capped, std::span<const uint32_t>(values), Predicate::bits_set(1u), cfg);
    EXPECT_EQ(got.kept, kept) << to_string(path);
    EXPECT_EQ(got.values, parted) << to_string(path);
  }
}

class CompactMisuseTest : public GpuTest {
 protected:
  const Context& ctx = shared_context();
  HostBuffer<uint32_t> in{ctx, 4096}, out{ctx, 4096}, flags{ctx, 4096}, count{ctx, 4}, temp{ctx, 4096};
  SelectArgs args() const {
    SelectArgs a;
    a.config.workgroup_size = 32;
    a.count = 1000;
    a.input = in.view();
    a.flags = flags.view();
    a.output = out.view();
    a.count_out = count.view();
    a.temp = temp.view();
    return a;
  }
  void expect_error(const SelectArgs& a, bool flagged, Errc code, const std::string& fragment,
                    bool partitioned = false) {
    auto record = [&](VkCommandBuffer cmd) {
      if (partitioned && flagged) record_partition_flagged(ctx, cmd, a);
      else if (partitioned) record_partition_if(ctx, cmd, a);
      else if (flagged) record_select_flagged(ctx, cmd, a);
      else record_select_if(ctx, cmd, a);
    };
    expect_recording_error(ctx, record, code, fragment);
  }
};

TEST_F(CompactMisuseTest, OutputTooSmallForTheWorstCase) {
  auto a = args();
  a.output.buffer_size = 999 * 4;  // even if only a few elements would be kept
  expect_error(a, false, Errc::buffer_too_small, "output buffer holds 999 elements");
  expect_error(a, false, Errc::buffer_too_small, "worst case");
}

TEST_F(CompactMisuseTest, PartitionOutputSmallerThanInput) {
  auto a = args();
  a.output.buffer_size = 999 * 4;
  expect_error(a, false, Errc::buffer_too_small, "output buffer holds 999 elements", true);
  expect_error(a, true, Errc::buffer_too_small, "the partition writes every element", true);
  a = args();
  a.flags.offset = 4096 - 400;
  expect_error(a, true, Errc::buffer_too_small, "flags buffer holds 100 elements", true);
  std::vector<uint32_t> values(10), few(9);
  try {
    partition_flagged(ctx, std::span<const uint32_t>(values), std::span<const uint32_t>(few));
    ADD_FAILURE() << "no error for flags shorter than values";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
  }
}

TEST_F(CompactMisuseTest, FlagsShorterThanValues) {
  auto a = args();
  a.flags.offset = 4096 - 400;
  expect_error(a, true, Errc::buffer_too_small, "flags buffer holds 100 elements");
  std::vector<uint32_t> values(10), few(9);
  try {
    select_flagged(ctx, std::span<const uint32_t>(values), std::span<const uint32_t>(few));
    ADD_FAILURE() << "no error for flags shorter than values";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
  }
}

TEST_F(CompactMisuseTest, CountBufferWithoutStorageUsage) {
  auto a = args();
  a.count_out.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  expect_error(a, false, Errc::missing_usage, "count buffer lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT");
  a = args();
  a.count_out.buffer = VK_NULL_HANDLE;
  expect_error(a, true, Errc::null_handle, "count buffer is VK_NULL_HANDLE");
}

TEST_F(CompactMisuseTest, TempTooSmallAndOverlaps) {
  auto a = args();
  a.temp.buffer_size = 4;
  expect_error(a, false, Errc::buffer_too_small, "temp buffer holds 1 elements");
  a = args();
  a.output = a.input;
  expect_error(a, false, Errc::invalid_argument, "overlap");
}

TEST_F(CompactMisuseTest, SinglePassNeedsBallotsSelectionAndAFillableAlignedTemp) {
  if (!ctx.single_pass_available() || !ctx.device_info().has_subgroup_ballot()) GTEST_SKIP() << "no single-pass";
  auto a = args();
  a.config.algorithm = CompactAlgorithm::single_pass;
  expect_error(a, false, Errc::missing_usage, "TRANSFER_DST");  // temp is STORAGE only
  expect_error(a, false, Errc::unsupported, "partitions run three-pass only", true);
  a.config.path = CompactPath::shared_memory;
  expect_error(a, true, Errc::unsupported, "ballot path only");
  const TempRequirements req = compact_temp_requirements(ctx, 1000, args().config);
  EXPECT_NE(req.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0u);  // automatic selects single-pass here
  HostBuffer<uint32_t> fillable(ctx, req.size + req.alignment, req.usage);
  a = args();
  a.temp = fillable.view(4);
  expect_error(a, false, Errc::misaligned, "TempRequirements::alignment");
}

// The single-pass kernel stages a whole tile in shared memory: a shape whose tile does not fit is refused
// by name for single_pass, and automatic runs it three-pass instead.
TEST_F(CompactMisuseTest, SinglePassTileMustFitSharedMemory) {
  if (!ctx.single_pass_available() || !ctx.device_info().has_subgroup_ballot()) GTEST_SKIP() << "no single-pass";
  const uint32_t w = ctx.device_info().max_workgroup_invocations >= 1024 ? 1024 : 256;
  std::mt19937_64 rng(fresh_seed());
  std::vector<uint32_t> in(100003);
  for (auto& v : in) v = static_cast<uint32_t>(rng());
  std::vector<uint32_t> want;
  std::copy_if(in.begin(), in.end(), std::back_inserter(want), [](uint32_t v) { return v > 1u << 31; });
  CompactConfig config{DataType::u32, CompactPath::ballot, w, 16, CompactAlgorithm::single_pass};
  ASSERT_GT(uint64_t{w} * 16 * 16, ctx.device_info().max_shared_memory_bytes);
  try {
    select_if(ctx, std::span<const uint32_t>(in), Predicate::greater(1u << 31), config);
    ADD_FAILURE() << "a single-pass tile larger than shared memory did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
  }
  config.algorithm = CompactAlgorithm::automatic;
  EXPECT_NE(describe_compact_plan(ctx, in.size(), config).find("three-pass"), std::string::npos)
      << describe_compact_plan(ctx, in.size(), config);
  EXPECT_EQ(select_if(ctx, std::span<const uint32_t>(in), Predicate::greater(1u << 31), config), want);
}

// Above large_tile_min_elements, single-pass selections default to K = 8 where that tile's stage fits
// shared memory (the H200: yes; lavapipe's 32 KiB: no); selections by a predicate and by flags still
// match std::copy_if there, each with temp sized by compact_temp_requirements.
TEST_F(CompactRecordTest, LargeSinglePassSelectionsDefaultTiles) {
  if (!ctx.single_pass_available() || !ctx.device_info().has_subgroup_ballot()) GTEST_SKIP() << "no single-pass";
  const size_t n = (size_t{1} << 23) + 5;
  CompactConfig config;
  const core::TileShape large{core::default_workgroup_size, core::compact_large_tile_vectors_per_lane};
  const bool fits = core::compact_single_pass_shared_bytes(large) <= ctx.device_info().max_shared_memory_bytes;
  const std::string plan = describe_compact_plan(ctx, n, config);
  EXPECT_NE(plan.find(fits ? "8 vectors per lane" : "4 vectors per lane"), std::string::npos) << plan;
  EXPECT_NE(describe_compact_plan(ctx, n - 10, config).find("4 vectors per lane"), std::string::npos);
  std::mt19937_64 rng(fresh_seed());
  std::vector<uint32_t> in(n), flags(n);
  for (auto& v : in) v = static_cast<uint32_t>(rng());
  for (auto& f : flags) f = static_cast<uint32_t>(rng() & 1u);
  std::vector<uint32_t> want, want_flagged;
  std::copy_if(in.begin(), in.end(), std::back_inserter(want), [](uint32_t v) { return v > 1u << 31; });
  for (size_t i = 0; i < n; ++i)
    if (flags[i]) want_flagged.push_back(in[i]);
  EXPECT_EQ(select_if(ctx, std::span<const uint32_t>(in), Predicate::greater(1u << 31), config), want);
  EXPECT_EQ(select_flagged(ctx, std::span<const uint32_t>(in), std::span<const uint32_t>(flags), config), want_flagged);
}

// The single-pass state clears itself: after one zeroing, runs with temp_zeroed need no fill, and the
// state is zero again after each (the last workgroup clears it), whatever the sizes in between.
TEST_F(CompactRecordTest, SinglePassReusesItsSelfClearedTemp) {
  if (!ctx.single_pass_available() || !ctx.device_info().has_subgroup_ballot()) GTEST_SKIP() << "no single-pass";
  std::mt19937_64 rng(fresh_seed());
  const size_t max_n = 129 * 128 + 1;
  CompactConfig cfg{DataType::u32, CompactPath::ballot, 32, 1, CompactAlgorithm::single_pass, 1};
  const TempRequirements req = compact_temp_requirements(ctx, max_n, cfg);
  HostBuffer<uint32_t> in(ctx, max_n * 4), out(ctx, max_n * 4), count(ctx, 4), temp(ctx, req.size, req.usage);
  std::memset(temp.data(), 0, req.size);
  for (size_t n : {max_n, size_t{1}, size_t{300}, max_n, size_t{5000}}) {
    const std::vector<uint32_t> values = random_values<uint32_t>(n, rng);
    std::memcpy(in.data(), values.data(), n * 4);
    poison(out.data(), max_n * 4);
    poison(count.data(), 4);
    const uint32_t threshold = static_cast<uint32_t>(rng());
    SelectArgs a{cfg, n, in.view(), {}, Predicate::greater(threshold), out.view(), count.view(), temp.view(), true};
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      record_select_if(ctx, cmd, a);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    std::vector<uint32_t> want;
    std::copy_if(values.begin(), values.end(), std::back_inserter(want), [&](uint32_t v) { return v > threshold; });
    ASSERT_EQ(count.data()[0], want.size()) << "n=" << n;
    ASSERT_TRUE(std::equal(want.begin(), want.end(), out.data())) << "n=" << n;
    for (size_t i = 0; i < req.size / 4; ++i) ASSERT_EQ(temp.data()[i], 0u) << "state word " << i << " n=" << n;
  }
}

// 8-byte elements stage twice the bytes per tile: a selection's default K halves until the stage fits
// shared memory (lavapipe's 32 KiB: K = 2 at W = 256), so automatic keeps the single-pass plan; a
// partition keeps K = 4 (three-pass), and an explicit shape whose stage does not fit is refused naming
// the type and both sizes.
TEST_F(CompactRecordTest, EightByteStagesFitSharedMemory) {
  if (!ctx.single_pass_available() || !ctx.device_info().has_subgroup_ballot() || !ctx.device_info().shader_int64)
    GTEST_SKIP() << "no single-pass or no shaderInt64";
  const uint64_t shared = ctx.device_info().max_shared_memory_bytes;
  uint32_t k = 4;
  while (k > 1 && core::compact_single_pass_shared_bytes({core::default_workgroup_size, k}, 8) > shared) k /= 2;
  const size_t n = 100003;
  CompactConfig config{DataType::u64};
  const std::string plan = describe_compact_plan(ctx, n, config);
  EXPECT_NE(plan.find("single-pass"), std::string::npos) << plan;
  EXPECT_NE(plan.find(std::to_string(k) + " vectors per lane"), std::string::npos) << plan;
  std::mt19937_64 rng(fresh_seed());
  const std::vector<uint64_t> in = random_values<uint64_t>(n, rng);
  const uint64_t threshold = rng();
  std::vector<uint64_t> want;
  std::copy_if(in.begin(), in.end(), std::back_inserter(want), [&](uint64_t v) { return v > threshold; });
  EXPECT_EQ(select_if(ctx, std::span<const uint64_t>(in), Predicate::greater(threshold), config), want);
  config.algorithm = CompactAlgorithm::three_pass;
  EXPECT_NE(describe_compact_plan(ctx, n, config).find("4 vectors per lane"), std::string::npos);
  config.algorithm = CompactAlgorithm::single_pass;
  config.vectors_per_lane = 16;
  if (core::compact_single_pass_shared_bytes({core::default_workgroup_size, 16}, 8) <= shared) return;
  try {
    compact_temp_requirements(ctx, n, config);
    ADD_FAILURE() << "a single-pass u64 tile larger than shared memory did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find("of u64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuscan::test

namespace gpuscan::test {
namespace {

// Run-length encoding's refusals: outputs too small for the worst case or overlapping, non-trivial runs
// without offsets, a bad temp; and an empty input, which writes 0 runs.
class CompactRunLengthMisuseTest : public GpuTest {
 protected:
  const Context& ctx = shared_context();
  HostBuffer<uint32_t> in{ctx, 4096}, values{ctx, 4096}, lengths{ctx, 4096}, offsets{ctx, 4096}, runs{ctx, 4};
  static constexpr uint64_t n = 1000;
  HostBuffer<uint32_t> temp{ctx, run_length_temp_requirements(ctx, n, {}).size,
                            run_length_temp_requirements(ctx, n, {}).usage};
  RunLengthArgs args() const {
    RunLengthArgs a;
    a.count = n;
    a.input = in.view();
    a.values = values.view();
    a.lengths = lengths.view();
    a.count_out = runs.view();
    a.temp = temp.view();
    return a;
  }
  void expect_error(const RunLengthArgs& a, Errc code, const std::string& says, bool non_trivial = false) {
    try {
      vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
        if (non_trivial) record_non_trivial_runs(ctx, cmd, a);
        else record_run_length_encode(ctx, cmd, a);
      });
      ADD_FAILURE() << "no error; expected one saying '" << says << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
};

TEST_F(CompactRunLengthMisuseTest, RefusesBadOutputsAndTemp) {
  RunLengthArgs a = args();
  a.lengths = lengths.view(4096 - 4 * (n - 1));  // one u32 short of the worst case
  expect_error(a, Errc::buffer_too_small, "lengths");
  a = args();
  a.values = lengths.view();
  a.lengths = lengths.view(64);  // inside the values' range
  expect_error(a, Errc::invalid_argument, "overlaps");
  a = args();
  a.offsets = in.view();
  expect_error(a, Errc::invalid_argument, "overlaps");
  a = args();
  expect_error(a, Errc::null_handle, "offsets", true);  // non-trivial runs need offsets
  a = args();
  a.temp = temp.view(64);
  expect_error(a, Errc::buffer_too_small, "temp");
}

TEST_F(CompactRunLengthMisuseTest, EmptyInputWritesZeroRuns) {
  for (const bool non_trivial : {false, true}) {
    poison(runs.data(), 4);
    RunLengthArgs a;
    a.count_out = runs.view();
    a.temp = temp.view();
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      if (non_trivial) record_non_trivial_runs(ctx, cmd, a);
      else record_run_length_encode(ctx, cmd, a);
      vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });
    EXPECT_EQ(runs.data()[0], 0u) << (non_trivial ? "non-trivial" : "encode");
  }
  EXPECT_TRUE(run_length_encode(ctx, std::span<const double>()).values.empty());
  EXPECT_TRUE(non_trivial_runs(ctx, std::span<const int32_t>()).lengths.empty());
  // One element: one run of 1, no non-trivial run.
  const std::vector<float> one = {2.5f};
  EXPECT_EQ(run_length_encode(ctx, std::span<const float>(one)).lengths, std::vector<uint32_t>{1});
  EXPECT_TRUE(non_trivial_runs(ctx, std::span<const float>(one)).offsets.empty());
}

}  // namespace
}  // namespace gpuscan::test
