// Deterministic floats: the same f32/f64 input gives bitwise the same scan and reduction on every run,
// while another Context keeps the device busy so that workgroups are scheduled differently from run to
// run. The single-pass scan's look-back folds tile totals in tile order for floats (common/lookback.glsl,
// "Ordered"), so its results do not depend on which predecessors had published when a tile looked back:
// every path through it -- fallbacks, a withheld tile 0, several tiles per workgroup -- must give the
// bits of the plain run.
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
  for (Algorithm algorithm : {Algorithm::automatic, Algorithm::reduce_then_scan})
    for (DataType type : {DataType::f32, DataType::f64})
      for (Op op : {Op::add, Op::mul}) {
        ScanConfig config;
        config.algorithm = algorithm;
        config.type = type;
        config.op = op;
        config.kind = op == Op::add ? ScanKind::inclusive : ScanKind::exclusive;
        const size_t n = 100'003;
        if (algorithm == Algorithm::automatic && ctx.device_info().single_pass_capable)
          EXPECT_EQ(ctx.resolve(config, n), Algorithm::single_pass);
        SCOPED_TRACE(std::string(to_string(ctx.resolve(config, n))));
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

// Every way through the ordered look-back gives the plain run's bits: totals computed by the fallback
// (spin limit 1), tile 0 withheld so that every successor computes its prefix and folds forward from
// it, a late fallback at a predecessor that had published, several tiles per workgroup, in place
// (with late fallbacks, which then find their predecessor's input overwritten), and prefixes published
// sparsely, so that look-backs fold runs of totals, past their first round with stride 7. (The
// unordered look-back, folding whatever it finds with subgroup reductions, fails the two stride-7 cases
// on lavapipe, for half the type/op/kind/shape combinations: checked when this test was written.)
// Small tiles (W = 32, K = 1: 235 tiles) make long look-backs; the default shape is checked too. Sums
// only: random_op_values' float products (every partial product +-1 or +-2) are exact, so they give
// the same bits in any order and could not show an order-dependent fold, while each case's hooks make
// pipelines of their own (lavapipe compiles each anew in a clean CI run).
TEST_F(DeterminismTest, SinglePassFloatScansGiveTheSameBitsOnEveryPath) {
  if (!shared_context().device_info().single_pass_capable) GTEST_SKIP() << "no single-pass scan on this device";
  TestHooks withheld_hooks;
  withheld_hooks.withhold_first_tile = true;
  TestHooks late_hooks;
  late_hooks.late_fallback = true;
  // Floats publish block prefixes (lookback_ordered.glsl), so these count blocks of G tiles (G = the
  // subgroup size, at most W): every 2nd block's, and every 7th's, past the W / G blocks a look-back
  // examines per round, so that it folds forward.
  TestHooks sparse_hooks;
  sparse_hooks.prefix_stride = 2;
  TestHooks sparser_hooks;
  sparser_hooks.prefix_stride = 7;
  const Context withheld = make_validated_context({}, withheld_hooks);
  const Context late = make_validated_context({}, late_hooks);
  const Context sparse = make_validated_context({}, sparse_hooks);
  const Context sparser = make_validated_context({}, sparser_hooks);
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  BusyDevice busy;
  for (DataType type : {DataType::f32, DataType::f64})
    for (Op op : {Op::add})
      for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive})
        for (uint32_t w : {32u, 0u}) {
          ScanConfig plain;
          plain.algorithm = Algorithm::single_pass;
          plain.type = type;
          plain.op = op;
          plain.kind = kind;
          plain.workgroup_size = w;
          plain.vectors_per_lane = w ? 1 : 0;
          SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)) + " " +
                       std::string(to_string(kind)) + " W " + std::to_string(w));
          visit_type(type, [&](auto tag) {
            using T = decltype(tag);
            const std::vector<T> input = random_op_values<T>(w ? 30'003 : 100'003, op, rng);
            const std::vector<T> first = scan(shared_context(), std::span<const T>(input), plain);
            ASSERT_TRUE(matches_reference(input, first, kind, op));
            const auto expect_same = [&](const Context& ctx, ScanConfig c, const char* what) {
              const std::vector<T> again = scan(ctx, std::span<const T>(input), c);
              EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(T)), 0) << what;
            };
            ScanConfig spin1 = plain;
            spin1.spin_limit = 1;
            ScanConfig several = plain;
            several.tiles_per_workgroup = 4;
            expect_same(shared_context(), spin1, "spin limit 1");
            expect_same(shared_context(), several, "4 tiles per workgroup");
            expect_same(withheld, spin1, "tile 0 withheld");
            expect_same(late, plain, "late fallback");
            expect_same(sparse, plain, "prefix stride 2");
            expect_same(sparser, several, "prefix stride 7, 4 tiles per workgroup");
            expect_same(sparser, spin1, "prefix stride 7, spin limit 1");
            const std::vector<T> in_place = scanned_in_place(late, spin1, input);
            EXPECT_EQ(std::memcmp(in_place.data(), first.data(), first.size() * sizeof(T)), 0) << "in place";
          });
        }
  RecordProperty("busy_batches", static_cast<int>(busy.batches()));
}

// Explicit single-pass float scans run with the defaults (they are deterministic too), and `automatic`
// picks single-pass for floats where it does for integers.
TEST_F(DeterminismTest, SinglePassRunsOnFloats) {
  const Context& ctx = shared_context();
  if (!ctx.device_info().single_pass_capable) GTEST_SKIP() << "no single-pass scan on this device";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto input = random_values<float>(100'003, rng);
  ScanConfig config;
  config.type = DataType::f32;
  config.algorithm = Algorithm::single_pass;
  EXPECT_TRUE(matches_reference(input, scan(ctx, std::span<const float>(input), config), config.kind));
  config.algorithm = Algorithm::automatic;
  EXPECT_EQ(ctx.resolve(config, input.size()), Algorithm::single_pass);
  const std::string why = ctx.describe_choice(ScanConfig{.type = DataType::f64}, input.size());
  EXPECT_NE(why.find("single-pass"), std::string::npos) << why;
  EXPECT_NE(why.find("ordered look-back"), std::string::npos) << why;
  config.deterministic = false;
  const std::string unordered = ctx.describe_choice(config, input.size());
  EXPECT_NE(unordered.find("unordered look-back"), std::string::npos) << unordered;
  EXPECT_EQ(unordered.find("the same bits"), std::string::npos) << unordered;
}

}  // namespace
}  // namespace gpuscan::test
