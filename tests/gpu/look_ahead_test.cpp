// The look-ahead scan (Algorithm::look_ahead, shaders/lookahead.comp): G workgroups striding over the
// tiles, chaining tile totals only. Small tiles (W = 32, K = 1: 128 elements) and small grids
// (TestHooks::look_ahead_grid) put sizes around tile boundaries and around G tiles within reach; a
// spin limit of 1 and TestHooks::withhold_first_tile force the fallback. Random data is drawn fresh on
// every run, and its seed logged (GPUSCAN_SEED replays it).
#include "core/plan.hpp"
#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

class LookAheadTest : public GpuTest {
 protected:
  void SetUp() override {
    if (!shared_context().single_pass_available()) GTEST_SKIP() << "no look-ahead scan here (as single-pass)";
  }
};

constexpr uint32_t kW = 32;
constexpr uint32_t kK = 1;
constexpr size_t kTile = kW * kK * 4;

// The Context with grid G (0: the default) and, if `withheld`, tile 0's state withheld; with `late`,
// TestHooks::late_fallback.
const Context& look_ahead_context(uint32_t grid, bool withheld, bool late = false) {
  return cached_context("look-ahead-" + std::to_string(grid) + (withheld ? "-withheld" : "") + (late ? "-late" : ""), [=] {
    TestHooks hooks;
    hooks.look_ahead_grid = grid;
    hooks.withhold_first_tile = withheld;
    hooks.late_fallback = late;
    return make_validated_context({}, hooks);
  });
}

ScanConfig look_ahead_config(DataType type, Op op, ScanKind kind, uint32_t spin_limit) {
  ScanConfig c;
  c.algorithm = Algorithm::look_ahead;
  c.type = type;
  c.op = op;
  c.kind = kind;
  c.workgroup_size = kW;
  c.vectors_per_lane = kK;
  c.spin_limit = spin_limit;
  return c;
}

// 0, 1, B-1, B, B+1, G·B-1, G·B, G·B+1, several G·B and around them, and two random sizes up to 9·G·B.
std::vector<size_t> look_ahead_sizes(size_t grid, std::mt19937_64& rng) {
  const size_t gb = grid * kTile;
  std::set<size_t> s = {0, 1, kTile - 1, kTile, kTile + 1, gb - 1, gb, gb + 1, 2 * gb, 3 * gb - 1, 3 * gb + 5, 7 * gb + 1};
  std::uniform_int_distribution<size_t> any(1, 9 * gb);
  for (int i = 0; i < 2; ++i) s.insert(any(rng));
  return {s.begin(), s.end()};
}

struct Seeded {
  uint64_t seed = fresh_seed();
  std::mt19937_64 rng{seed};
};

// One type and operator over every size, both kinds, spin limits 1 and 64, with and without tile 0
// withheld, and with a carry-in where the reference takes one (not float sums).
template <class T>
void check_type(uint32_t grid, Op op, std::mt19937_64& rng) {
  for (size_t n : look_ahead_sizes(grid, rng)) {
    for (bool withheld : {false, true}) {
      const Context& ctx = look_ahead_context(grid, withheld);
      for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
        const uint32_t spin = rng() % 2 ? 1 : 64;
        const ScanConfig c = look_ahead_config(data_type_of<T>::value, op, kind, spin);
        const auto input = random_op_values<T>(n, op, rng);
        std::optional<T> initial;
        if (!(std::is_floating_point_v<T> && op == Op::add) && rng() % 2)
          initial = random_op_values<T>(1, op, rng)[0];
        const size_t in_offset = rng() % 4 == 0 ? 1 : 0;  // now and then off vector alignment
        const auto r = record_and_run(ctx, input, c, in_offset, nullptr, initial);
        const std::string what = std::string(to_string(c.type)) + " " + std::string(to_string(op)) + " " +
                                 std::string(to_string(kind)) + " n = " + std::to_string(n) + ", G = " +
                                 std::to_string(grid) + ", spin " + std::to_string(spin) +
                                 (withheld ? ", tile 0 withheld" : "") + (initial ? ", carry-in" : "") +
                                 (in_offset ? ", unaligned" : "");
        EXPECT_TRUE(r.guards_intact) << what;
        EXPECT_TRUE(matches_reference(input, r.output, kind, op, initial)) << what;
      }
    }
  }
}

// G = 1 (one workgroup takes every tile, no state read), small grids, and one wider than the workgroup
// (G = 40 > W = 32: the window takes two chunks).
TEST_F(LookAheadTest, SizesAroundTilesAndGrid) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  for (uint32_t grid : {1u, 4u, 5u, 40u}) {
    check_type<uint32_t>(grid, Op::add, s.rng);
    check_type<uint64_t>(grid, Op::add, s.rng);
    check_type<float>(grid, Op::add, s.rng);
  }
}

TEST_F(LookAheadTest, OtherTypesAndOperators) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  check_type<uint32_t>(5, Op::max, s.rng);
  check_type<int32_t>(5, Op::min, s.rng);
  check_type<int64_t>(5, Op::add, s.rng);
  check_type<uint64_t>(5, Op::bit_xor, s.rng);
  check_type<float>(5, Op::max, s.rng);
  check_type<double>(5, Op::add, s.rng);
  check_type<double>(5, Op::mul, s.rng);
}

// The device's default grid (core::look_ahead_default_grid of its shader cores), around one round of it
// and a few rounds past (lavapipe runs workgroups nearly in order, so the later rounds fall back a lot).
TEST_F(LookAheadTest, DefaultGrid) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  const size_t gb = size_t{core::look_ahead_default_grid(shared_context().device_info().shader_cores)} * kTile;
  for (size_t n : {gb - 1, gb + 1, gb + 3 * kTile + 7, 5 * gb + 11}) {
    const ScanConfig c = look_ahead_config(DataType::u32, Op::add, ScanKind::exclusive, 0);
    const auto input = random_values<uint32_t>(n, s.rng);
    const auto r = record_and_run(shared_context(), input, c);
    EXPECT_TRUE(r.guards_intact) << n;
    EXPECT_TRUE(matches_reference(input, r.output, c.kind)) << n;
  }
}

// Floats: for one G, the same bits on every run, whoever computes the totals: the owners, or
// fallbacks everywhere (spin limit 1, tile 0 withheld).
template <class T>
void check_same_bits(uint32_t grid, std::mt19937_64& rng) {
  for (size_t n : {3 * grid * kTile + 17, 7 * grid * kTile - 1}) {
    const auto input = random_values<T>(n, rng);
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      const ScanConfig c = look_ahead_config(data_type_of<T>::value, Op::add, kind, 64);
      const auto first = record_and_run(look_ahead_context(grid, false), input, c);
      const auto second = record_and_run(look_ahead_context(grid, false), input, c);
      const auto fallbacks =
          record_and_run(look_ahead_context(grid, true), input, look_ahead_config(c.type, Op::add, kind, 1));
      const std::string what = std::string(to_string(c.type)) + " " + std::string(to_string(kind)) +
                               " n = " + std::to_string(n) + ", G = " + std::to_string(grid);
      EXPECT_TRUE(matches_reference(input, first.output, kind)) << what;
      EXPECT_EQ(0, std::memcmp(first.output.data(), second.output.data(), n * sizeof(T))) << what << ": two runs";
      EXPECT_EQ(0, std::memcmp(first.output.data(), fallbacks.output.data(), n * sizeof(T)))
          << what << ": with fallbacks";
    }
  }
}

TEST_F(LookAheadTest, FloatSumsSameBitsForOneGrid) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  for (uint32_t grid : {4u, 40u}) {
    check_same_bits<float>(grid, s.rng);
    check_same_bits<double>(grid, s.rng);
  }
}

// In place: a fallback reads input its owner may have overwritten; it must notice and take the state.
// With TestHooks::late_fallback every window recomputes its newest tile, whose owner has most likely
// stored its output already.
TEST_F(LookAheadTest, InPlace) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  for (const auto& [grid, late] : {std::pair{4u, false}, std::pair{40u, false}, std::pair{4u, true}, std::pair{40u, true}}) {
    const Context& ctx = look_ahead_context(grid, false, late);
    auto run = [&](auto tag, Op op, size_t n, uint32_t spin, ScanKind kind) {
      using T = decltype(tag);
      const ScanConfig c = look_ahead_config(data_type_of<T>::value, op, kind, spin);
      const auto input = random_op_values<T>(n, op, s.rng);
      EXPECT_TRUE(matches_reference(input, scanned_in_place(ctx, c, input), kind, op))
          << to_string(c.type) << " " << to_string(op) << " n = " << n << ", G = " << grid << ", spin " << spin
          << (late ? ", late fallbacks" : "");
    };
    for (size_t n : look_ahead_sizes(grid, s.rng)) {
      for (uint32_t spin : {1u, 64u}) {
        const ScanKind kind = s.rng() % 2 ? ScanKind::inclusive : ScanKind::exclusive;
        run(uint32_t{}, Op::add, n, spin, kind);
        run(uint64_t{}, Op::add, n, spin, kind);
        run(float{}, Op::max, n, spin, kind);
      }
    }
  }
}

TEST_F(LookAheadTest, WithheldFirstTileInPlaceRefused) {
  const Context& ctx = look_ahead_context(4, true);
  HostBuffer<uint32_t> data(ctx, 4096), temp(ctx, 4096);
  ScanArgs a{look_ahead_config(DataType::u32, Op::add, ScanKind::exclusive, 0), 1000, data.view(), data.view(),
             temp.view()};
  try {
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, a); });
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
  }
}

// The state is zero again after the scan (plans with ScanArgs::temp_zeroed rely on it), and a second
// scan on that temp without the fill is right.
TEST_F(LookAheadTest, LeavesStateZeroed) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  for (bool withheld : {false, true}) {
    const Context& ctx = look_ahead_context(4, withheld);
    for (DataType type : {DataType::u32, DataType::u64}) {
      const size_t n = 9 * 4 * kTile + 3;
      const uint64_t state = core::single_pass_state_bytes((n + kTile - 1) / kTile, element_size(type));
      std::vector<uint32_t> temp;
      bool ok = false;
      if (type == DataType::u32) {
        const auto input = random_values<uint32_t>(n, s.rng);
        ok = matches_reference(input, record_and_run(ctx, input, look_ahead_config(type, Op::add, ScanKind::inclusive, 1),
                                                     0, &temp).output, ScanKind::inclusive);
      } else {
        const auto input = random_values<uint64_t>(n, s.rng);
        ok = matches_reference(input, record_and_run(ctx, input, look_ahead_config(type, Op::add, ScanKind::inclusive, 1),
                                                     0, &temp).output, ScanKind::inclusive);
      }
      EXPECT_TRUE(ok) << to_string(type);
      ASSERT_GE(temp.size() * 4, state);
      for (size_t i = 0; i < state / 4; ++i) ASSERT_EQ(temp[i], 0u) << to_string(type) << " word " << i;
    }
  }
}

TEST_F(LookAheadTest, OptInOnly) {
  EXPECT_EQ(parse_algorithm("look-ahead"), Algorithm::look_ahead);
  EXPECT_EQ(to_string(Algorithm::look_ahead), "look-ahead");
  for (uint64_t n : {uint64_t{0}, uint64_t{1000}, uint64_t{1} << 20, uint64_t{1} << 26})
    EXPECT_NE(shared_context().resolve(ScanConfig{}, n), Algorithm::look_ahead) << n;
  ScanConfig c;
  c.algorithm = Algorithm::look_ahead;
  EXPECT_EQ(shared_context().resolve(c, 1000), Algorithm::look_ahead);
}

// Many rounds per workgroup (G = 4, up to 1600 tiles each): every workgroup's loops run long, which on
// lavapipe count against its loop-iteration limit (lookback.glsl, LATE_FALLBACK's note).
TEST_F(LookAheadTest, ManyRoundsPerWorkgroup) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  for (size_t rounds : {100, 1600}) {
    for (uint32_t spin : {0u, 1u}) {
      const size_t n = 4 * kTile * rounds + 3;
      const ScanConfig c = look_ahead_config(DataType::u32, Op::add, ScanKind::inclusive, spin);
      const auto input = random_values<uint32_t>(n, s.rng);
      const auto r = record_and_run(look_ahead_context(4, false), input, c);
      EXPECT_TRUE(r.guards_intact) << rounds;
      EXPECT_TRUE(matches_reference(input, r.output, c.kind)) << rounds << " rounds, spin " << spin;
    }
  }
}

// Scans longer than one binding (TestHooks::max_binding_bytes): windows chained on the GPU, each a
// look-ahead dispatch whose carry-in is the running total, on a state the window before left zeroed.
TEST_F(LookAheadTest, Windows) {
  Seeded s;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  const Context& ctx = cached_context("look-ahead-4-windows", [] {
    TestHooks hooks;
    hooks.look_ahead_grid = 4;
    hooks.max_binding_bytes = 20000;  // windows of a few thousand elements
    return make_validated_context({}, hooks);
  });
  for (size_t n : {size_t{4999}, size_t{23456}}) {
    for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      const ScanConfig c32 = look_ahead_config(DataType::u32, Op::add, kind, 1);
      const std::string plan = describe_scan_plan(ctx, n, c32);
      EXPECT_NE(plan.find("lookahead"), plan.rfind("lookahead")) << "one window only:\n" << plan;
      const auto in32 = random_values<uint32_t>(n, s.rng);
      const auto r32 = record_and_run(ctx, in32, c32);
      EXPECT_TRUE(r32.guards_intact) << n;
      EXPECT_TRUE(matches_reference(in32, r32.output, kind)) << "u32 n = " << n;
      const ScanConfig c64 = look_ahead_config(DataType::i64, Op::add, kind, 64);
      const auto in64 = random_values<int64_t>(n, s.rng);
      const auto r64 = record_and_run(ctx, in64, c64, 0, nullptr, std::optional<int64_t>(-12345));
      EXPECT_TRUE(r64.guards_intact) << n;
      EXPECT_TRUE(matches_reference(in64, r64.output, kind, Op::add, std::optional<int64_t>(-12345))) << "i64 n = " << n;
    }
  }
}

}  // namespace
}  // namespace gpuscan::test
