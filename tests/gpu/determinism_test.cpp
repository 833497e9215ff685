// Deterministic floats (ScanConfig::deterministic, the default): the same f32/f64 input gives bitwise
// the same scan and reduction on every run, while another Context keeps the device busy so that
// workgroups are scheduled differently from run to run. Sizes lie between one tile and 2^25 elements,
// where `automatic` would otherwise pick the single-pass scan, whose look-back folds predecessors in an
// order that depends on scheduling. And the opt-out: deterministic = false allows the single-pass scan.
#include <cstdlib>

#include "busy_device.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class DeterminismTest : public GpuTest {};

// 50 in CI; GPUSCAN_DETERMINISM_RUNS sets another count (the H200 record used 100).
const int kRuns = [] {
  const char* env = std::getenv("GPUSCAN_DETERMINISM_RUNS");
  const int runs = env ? std::atoi(env) : 0;
  return runs > 1 ? runs : 50;
}();

template <class T>
void expect_identical_runs(const std::vector<T>& input, const ScanConfig& config) {
  const std::vector<T> first = scan(shared_context(), std::span<const T>(input), config);
  ASSERT_TRUE(matches_reference(input, first, config.kind, config.op));
  for (int run = 1; run < kRuns; ++run) {
    const std::vector<T> again = scan(shared_context(), std::span<const T>(input), config);
    ASSERT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(T)), 0)
        << "run " << run << " differs from run 0 (" << to_string(config.type) << " " << to_string(config.op) << ")";
  }
}

TEST_F(DeterminismTest, FloatScansAreBitwiseIdenticalRunToRun) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  BusyDevice busy;
  for (DataType type : {DataType::f32, DataType::f64})
    for (Op op : {Op::add, Op::mul}) {
      ScanConfig config;  // automatic, deterministic by default
      config.type = type;
      config.op = op;
      config.kind = op == Op::add ? ScanKind::inclusive : ScanKind::exclusive;
      const size_t n = 100'003;
      EXPECT_NE(ctx.resolve(config, n), Algorithm::single_pass);
      visit_type(type, [&](auto tag) {
        using T = decltype(tag);
        expect_identical_runs(random_op_values<T>(n, op, rng), config);
      });
    }
  RecordProperty("busy_batches", static_cast<int>(busy.batches()));
}

TEST_F(DeterminismTest, FloatReductionsAreBitwiseIdenticalRunToRun) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  BusyDevice busy;
  const auto f = random_values<float>(1'000'003, rng);
  const auto d = random_values<double>(300'007, rng);
  const float f_first = reduce(shared_context(), std::span<const float>(f));
  const double d_first = reduce(shared_context(), std::span<const double>(d));
  for (int run = 1; run < kRuns; ++run) {
    const float f_again = reduce(shared_context(), std::span<const float>(f));
    const double d_again = reduce(shared_context(), std::span<const double>(d));
    ASSERT_EQ(std::memcmp(&f_again, &f_first, sizeof f_first), 0) << "f32 run " << run;
    ASSERT_EQ(std::memcmp(&d_again, &d_first, sizeof d_first), 0) << "f64 run " << run;
  }
}

// The default refuses an explicit single-pass float scan, saying how to opt out; with the opt-out
// it runs (and `automatic` picks it again where it is fastest). Integers never need the opt-out.
TEST_F(DeterminismTest, ExplicitSinglePassNeedsTheOptOutForFloats) {
  const Context& ctx = shared_context();
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = random_values<float>(100'003, rng);
  ScanConfig config;
  config.type = DataType::f32;
  config.algorithm = Algorithm::single_pass;
  try {
    scan(ctx, std::span<const float>(input), config);
    ADD_FAILURE() << "an explicit single-pass f32 scan ran with deterministic = true";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find("ScanConfig::deterministic = false"), std::string::npos) << e.what();
  }
  config.deterministic = false;
  EXPECT_EQ(ctx.resolve(config, input.size()), Algorithm::single_pass);
  EXPECT_TRUE(matches_reference(input, scan(ctx, std::span<const float>(input), config), config.kind));
  config.algorithm = Algorithm::automatic;
  EXPECT_EQ(ctx.resolve(config, input.size()), Algorithm::single_pass);
  EXPECT_NE(ctx.describe_choice(ScanConfig{.type = DataType::f64}, input.size()).find("deterministic"),
            std::string::npos);

  ScanConfig ints;  // u32: the default leaves the single-pass scan available
  ints.algorithm = Algorithm::single_pass;
  EXPECT_EQ(ctx.resolve(ints, input.size()), Algorithm::single_pass);
}

}  // namespace
}  // namespace gpuscan::test
