// Every element type x operator x algorithm against the CPU reference (include/gpuscan/reference.hpp).
//
// How the space is sampled, to keep CI affordable (each new pipeline costs lavapipe an LLVM compile):
//   - every (type, operator) pair runs on every algorithm (multipass with both workgroup scans,
//     reduce-then-scan, single-pass with and without forced fallback), with small tiles (W = 32,
//     K = 1) so that the recursion and the look-back are exercised at small sizes;
//   - exclusive and inclusive alternate over the pairs, shifted per algorithm, so every pair meets
//     both kinds across the algorithms;
//   - sizes: 1, B - 1, B + 1 and one random size up to B^2 + B (three levels for the recursive plans,
//     up to B + 1 tiles of look-back), fresh random data and poisoned outputs on every run;
//   - the 64-bit look-back (two state words per tile) gets its own larger runs below, and the
//     boundary sweeps of scan_test.cpp cover u32/i32/f32 add in depth;
//   - with GPUSCAN_TEST_PAIR_SHARE=S (CI's entries at its second and third subgroup sizes, where
//     tests/CMakeLists.txt says why), a run takes every S-th pair from a random start: the pairs
//     rotate from run to run, and at CI's main subgroup size every pair runs every time.
#include <cstdlib>
#include <functional>
#include <limits>

#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

struct TypeOp {
  DataType type;
  Op op;
};

// 1 unless GPUSCAN_TEST_PAIR_SHARE asks for a share of the pairs (see the top of this file).
size_t pair_share() {
  const char* s = std::getenv("GPUSCAN_TEST_PAIR_SHARE");
  const unsigned long share = s ? std::strtoul(s, nullptr, 10) : 1;
  return share > 1 ? share : 1;
}

std::vector<TypeOp> all_type_ops() {
  std::vector<TypeOp> pairs;
  for (DataType t : {DataType::u32, DataType::i32, DataType::f32, DataType::u64, DataType::i64, DataType::f64})
    for (Op op : {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor})
      if (op_supports(op, t)) pairs.push_back({t, op});
  return pairs;
}

struct AlgorithmCase {
  Algorithm algorithm;
  WorkgroupAlgorithm workgroup = WorkgroupAlgorithm::automatic;
  uint32_t spin_limit = 0;  // single-pass: 1 forces the fallback at nearly every wait
};

std::string case_name(const ::testing::TestParamInfo<AlgorithmCase>& info) {
  std::string name(to_string(info.param.algorithm));
  if (info.param.algorithm == Algorithm::multipass) name += "_" + std::string(to_string(info.param.workgroup));
  if (info.param.spin_limit) name += "_spin" + std::to_string(info.param.spin_limit);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

class OpsTest : public GpuTest, public ::testing::WithParamInterface<AlgorithmCase> {
 protected:
  ScanConfig config(DataType type, Op op, ScanKind kind) const {
    ScanConfig c;
    c.type = type;
    c.op = op;
    c.kind = kind;
    c.algorithm = GetParam().algorithm;
    c.workgroup = GetParam().workgroup;
    c.spin_limit = GetParam().spin_limit;
    c.workgroup_size = 32;
    c.vectors_per_lane = 1;
    c.deterministic = false;  // floats on the unordered look-back; the loops below add the ordered one
    return c;
  }
  size_t tile() const { return GetParam().algorithm == Algorithm::multipass ? 64 : 128; }
};

// `nans`: the inputs hold NaNs in their second half (with_nans; float types only).
template <class T>
void check_sizes(const ScanConfig& c, const std::vector<size_t>& sizes, std::mt19937_64& rng, uint64_t seed,
                 bool nans = false) {
  for (size_t n : sizes) {
    SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
                 std::string(to_string(c.kind)) + ", n = " + std::to_string(n) + (nans ? ", with NaNs" : "") +
                 ", seed " + std::to_string(seed));
    auto input = random_op_values<T>(n, c.op, rng);
    if constexpr (std::is_floating_point_v<T>)
      if (nans) input = with_nans(std::move(input), rng);
    const auto r = record_and_run(shared_context(), input, c);
    EXPECT_TRUE(r.guards_intact) << "the scan wrote outside its output range";
    EXPECT_TRUE(matches_reference(input, r.output, c.kind, c.op));
  }
}

TEST_P(OpsTest, EveryTypeAndOperator) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = tile();
  const auto pairs = all_type_ops();
  const size_t shift = static_cast<size_t>(GetParam().algorithm) + GetParam().spin_limit +
                       static_cast<size_t>(GetParam().workgroup);
  const size_t share = pair_share(), start = rng() % share;
  for (size_t i = start; i < pairs.size(); i += share) {
    const ScanKind kind = (i + shift) % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    ScanConfig c = config(pairs[i].type, pairs[i].op, kind);
    const size_t any = std::uniform_int_distribution<size_t>(2 * b, b * b + b)(rng);
    visit_type(c.type, [&](auto t) { check_sizes<decltype(t)>(c, {1, b - 1, b + 1, any}, rng, seed); });
    const bool nan_op = is_float(c.type) && (c.op == Op::min || c.op == Op::max);
    if (nan_op)  // NaN propagates through every combining step: lanes, subgroups, tiles, levels
      visit_type(c.type, [&](auto t) { check_sizes<decltype(t)>(c, {1, b + 1, any}, rng, seed, true); });
    if (is_float(c.type) && c.algorithm == Algorithm::single_pass) {  // the ordered look-back too
      c.deterministic = true;
      visit_type(c.type, [&](auto t) { check_sizes<decltype(t)>(c, {b + 1, any}, rng, seed); });
      if (nan_op) visit_type(c.type, [&](auto t) { check_sizes<decltype(t)>(c, {any}, rng, seed, true); });
    }
  }
}

// A carry-in (ScanArgs::initial_bits) lands in front of everything on every algorithm: only the plan's
// root dispatch applies it, so a scan of several levels or many look-back tiles proves it arrives
// once. The single-pass case with spin limit 1 makes other workgroups compute tile 0's prefix in the
// fallback, which must include the carry-in too. Float add is left out (no exact reference).
TEST_P(OpsTest, CarryIn) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const size_t b = tile();
  const TypeOp pairs[] = {{DataType::u32, Op::add}, {DataType::i32, Op::max},    {DataType::u64, Op::add},
                          {DataType::i64, Op::min}, {DataType::u32, Op::bit_xor}, {DataType::f32, Op::min},
                          {DataType::f64, Op::mul}};
  for (size_t i = 0; i < std::size(pairs); ++i) {
    const ScanKind kind = i % 2 ? ScanKind::inclusive : ScanKind::exclusive;
    ScanConfig c = config(pairs[i].type, pairs[i].op, kind);
    c.deterministic = i % 3 == 0;  // f64 mul: the ordered look-back (f32 min the unordered one)
    const size_t any = std::uniform_int_distribution<size_t>(2 * b, b * b + b)(rng);
    visit_type(c.type, [&](auto tag) {
      using T = decltype(tag);
      for (size_t n : {size_t{1}, b - 1, b, b + 1, any}) {
        const auto input = random_op_values<T>(n, c.op, rng);
        const T initial = random_op_values<T>(1, c.op, rng)[0];
        SCOPED_TRACE(std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
                     std::string(to_string(kind)) + ", n = " + std::to_string(n) + ", seed " + std::to_string(seed));
        const auto r = record_and_run<T>(shared_context(), input, c, 0, nullptr, initial);
        EXPECT_TRUE(r.guards_intact);
        EXPECT_TRUE(matches_reference<T>(input, r.output, kind, c.op, initial));
      }
    });
  }
}

// Tile 0's prefix computed by other workgroups (the look-back's fallback), carry-in included: with
// TestHooks::withhold_first_tile tile 0's owner publishes nothing (u32) or only the first
// word of its two (i64: a half-written state, which every waiter sees as not ready for good -- a
// fallback that dropped its total there, as the look-back once did, never finishes), so every successor
// has to (and scheduling cannot hide that path). Single-pass scans with and without a carry-in, and a
// single-pass compaction, whose fallback recounts tile 0.
TEST(SinglePassFallback, WithheldFirstTile) {
  TestHooks hooks;
  hooks.withhold_first_tile = true;
  const Context ctx = make_validated_context({}, hooks);
  if (!ctx.device_info().single_pass_capable) GTEST_SKIP() << "no single-pass scan on this device";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  ScanConfig c;
  c.algorithm = Algorithm::single_pass;
  c.workgroup_size = 32;
  c.vectors_per_lane = 1;
  c.spin_limit = 4;
  for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
    for (size_t n : {size_t{129}, size_t{128 * 7 + 3}, size_t{20000}}) {
      SCOPED_TRACE(std::string(to_string(kind)) + ", n = " + std::to_string(n) + ", seed " + std::to_string(seed));
      c.kind = kind;
      c.type = DataType::u32;
      const auto u = random_values<uint32_t>(n, rng);
      const auto plain = record_and_run<uint32_t>(ctx, u, c);
      EXPECT_TRUE(matches_reference<uint32_t>(u, plain.output, kind));
      const uint32_t initial = static_cast<uint32_t>(rng());
      const auto seeded = record_and_run<uint32_t>(ctx, u, c, 0, nullptr, initial);
      EXPECT_TRUE(matches_reference<uint32_t>(u, seeded.output, kind, Op::add, initial));
      c.type = DataType::i64;
      c.op = Op::min;
      const auto v = random_values<int64_t>(n, rng);
      const int64_t low = std::numeric_limits<int64_t>::min() / 2;
      const auto seeded64 = record_and_run<int64_t>(ctx, v, c, 0, nullptr, low);
      EXPECT_TRUE(matches_reference<int64_t>(v, seeded64.output, kind, Op::min, low));
      c.op = Op::add;
    }
  const std::vector<uint32_t> values = random_values<uint32_t>(20000, rng);
  std::vector<uint32_t> want;
  std::copy_if(values.begin(), values.end(), std::back_inserter(want), [](uint32_t x) { return x & 4u; });
  CompactConfig cc;
  cc.algorithm = CompactAlgorithm::single_pass;
  cc.workgroup_size = 32;
  cc.vectors_per_lane = 1;
  cc.spin_limit = 4;
  if (ctx.device_info().has_subgroup_ballot())
    EXPECT_EQ(select_if(ctx, std::span<const uint32_t>(values), Predicate::bits_set(4u), cc), want);
  for (const std::string& m : message_log().take()) ADD_FAILURE() << "validation: " << m;
}

INSTANTIATE_TEST_SUITE_P(, OpsTest,
                         ::testing::Values(AlgorithmCase{Algorithm::multipass, WorkgroupAlgorithm::blelloch},
                                           AlgorithmCase{Algorithm::multipass, WorkgroupAlgorithm::subgroup},
                                           AlgorithmCase{Algorithm::reduce_then_scan},
                                           AlgorithmCase{Algorithm::single_pass},
                                           AlgorithmCase{Algorithm::single_pass, WorkgroupAlgorithm::automatic, 1}),
                         case_name);

class Ops64Test : public GpuTest {};

// The 64-bit look-back: two state words per tile, each with a flag and one half of the value. Many
// tiles, with and without forced fallback (spin_limit = 1 makes almost every wait compute the
// predecessor's total itself and offer it word by word), for a 64-bit integer (values use both
// halves) and f64 max (exact, so any mix-up of halves shows).
TEST_F(Ops64Test, SinglePassLookBackWithTwoWordStates) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (uint32_t spin : {1u, 64u}) {
    ScanConfig c;
    c.algorithm = Algorithm::single_pass;
    c.workgroup_size = 32;
    c.vectors_per_lane = 1;
    c.spin_limit = spin;
    c.deterministic = false;
    c.kind = spin == 1 ? ScanKind::exclusive : ScanKind::inclusive;
    c.type = DataType::u64;
    c.op = Op::add;
    check_sizes<uint64_t>(c, {128 * 128 + 1, 300'001}, rng, seed);
    c.type = DataType::i64;
    c.op = Op::min;
    check_sizes<int64_t>(c, {128 * 200 + 3}, rng, seed);
    c.type = DataType::f64;
    c.op = Op::max;
    check_sizes<double>(c, {128 * 128 + 1, 200'003}, rng, seed);
  }
}

// Default configurations (W = 256, K = 4) on 64-bit data, through the convenience calls.
TEST_F(Ops64Test, ConvenienceCallsWithDefaults) {
  const Context& ctx = shared_context();
  const std::vector<int64_t> in = {5, -3, 2, 7, -1};
  ScanConfig c;
  c.op = Op::max;
  EXPECT_EQ(inclusive_scan(ctx, std::span<const int64_t>(in), c), (std::vector<int64_t>{5, 5, 5, 7, 7}));
  c.op = Op::min;
  EXPECT_EQ(exclusive_scan(ctx, std::span<const int64_t>(in), c),
            (std::vector<int64_t>{INT64_MAX, 5, -3, -3, -3}));
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto big = random_values<uint64_t>(1'000'003, rng);
  EXPECT_TRUE(matches_reference(big, inclusive_scan(ctx, std::span<const uint64_t>(big)), ScanKind::inclusive))
      << "seed " << seed;
  const auto doubles = random_values<double>(300'007, rng);
  EXPECT_TRUE(matches_reference(doubles, exclusive_scan(ctx, std::span<const double>(doubles)), ScanKind::exclusive))
      << "seed " << seed;
}

// Offsets for 8-byte elements: any multiple of 8 bytes works (odd element offsets take the scalar
// path, the single-pass scan's too); the vector path needs 32-byte (4-element) offsets; other offsets are refused.
TEST_F(Ops64Test, Alignment) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (size_t offset : {1u, 2u, 3u, 4u, 5u}) {
    for (auto algorithm :
         {Algorithm::automatic, Algorithm::reduce_then_scan, Algorithm::multipass, Algorithm::single_pass}) {
      if (algorithm == Algorithm::single_pass && !ctx.single_pass_available()) continue;
      const auto input = random_values<uint64_t>(20'000, rng);
      ScanConfig c;
      c.algorithm = algorithm;
      c.op = Op::bit_xor;
      const auto r = record_and_run(ctx, input, c, offset);
      EXPECT_TRUE(r.guards_intact);
      EXPECT_TRUE(matches_reference(input, r.output, c.kind, c.op)) << "offset " << offset << " " << to_string(algorithm);
    }
  }
  // A 4-byte offset is not a multiple of the element size.
  ScanConfig c;
  c.type = DataType::f64;
  const TempRequirements req = scan_temp_requirements(ctx, 100, c);
  HostBuffer<double> in(ctx, 1024), out(ctx, 1024), temp(ctx, req.size + 64, req.usage);
  auto record = [&](const ScanConfig& config, VkDeviceSize in_offset) {
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      record_scan(ctx, cmd, {config, 100, in.view(in_offset), out.view(), temp.view()});
    });
  };
  try {
    record(c, 4);
    ADD_FAILURE() << "a 4-byte offset for f64 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::misaligned) << e.what();
  }
}

// Bitwise operators exist on integer types only.
TEST_F(Ops64Test, BitwiseOperatorsOnFloatsAreRefused) {
  const std::vector<float> in = {1, 2};
  for (Op op : {Op::bit_and, Op::bit_or, Op::bit_xor}) {
    ScanConfig c;
    c.op = op;
    try {
      inclusive_scan(shared_context(), std::span<const float>(in), c);
      ADD_FAILURE() << to_string(op) << " ran on f32";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find("integer types only"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpuscan::test
