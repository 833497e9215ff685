// Stream compaction checks shared by the Vulkan and OpenGL tests: every predicate family and the flags,
// densities 0%, 1%, 50%, 99% and 100%, sizes around tile (and tile-count scan) boundaries, u32 / i32 /
// f32 / u64 / i64 / f64, against std::copy_if and std::stable_partition; run starts (unique) against
// std::unique_copy's rule. COMPACT_TESTS(Fixture) defines the test cases
// for a fixture derived from CompactChecks.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

#include "core/scan_shape.hpp"
#include "core/tuning.hpp"
#include "gpu_test_support.hpp"
#include "gpuscan/compact.hpp"

namespace gpuscan::test {

constexpr double densities[] = {0.0, 0.01, 0.5, 0.99, 1.0};
// W = 32, K = 1: tiles of 128. 129 · 128 + 1 elements make 130 tiles, whose counts need a second
// level in both count scans (reduce-then-scan tiles of 128, multipass blocks of 64).
constexpr uint32_t small_w = 32;
constexpr size_t sizes[] = {1, 2, 127, 128, 129, 255, 256, 257, 1000, 128 * 128, 129 * 128 + 1};

template <class T>
std::vector<Predicate> predicates() {
  std::vector<Predicate> p;
  p.push_back(Predicate::nonzero());
  if constexpr (std::is_same_v<T, uint32_t>) {
    const uint32_t c = 0x80000000u;
    p.push_back(Predicate::equal<T>(0x12345u));
    p.push_back(Predicate::not_equal<T>(0x12345u));
    p.push_back(Predicate::less<T>(c));
    p.push_back(Predicate::less_equal<T>(c));
    p.push_back(Predicate::greater<T>(c));
    p.push_back(Predicate::greater_equal<T>(c));
    p.push_back(Predicate::in_range<T>(0x40000000u, 0xC0000000u));
  } else if constexpr (std::is_same_v<T, int32_t>) {
    p.push_back(Predicate::equal<T>(-77));
    p.push_back(Predicate::not_equal<T>(-77));
    p.push_back(Predicate::less<T>(0));
    p.push_back(Predicate::less_equal<T>(0));
    p.push_back(Predicate::greater<T>(0));
    p.push_back(Predicate::greater_equal<T>(0));
    p.push_back(Predicate::in_range<T>(-(1 << 30), 1 << 30));
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    // Constants whose high and low words both matter.
    const uint64_t c = 0x8000000080000000u;
    p.push_back(Predicate::equal<T>(0x123456789abcdefu));
    p.push_back(Predicate::not_equal<T>(0x123456789abcdefu));
    p.push_back(Predicate::less<T>(c));
    p.push_back(Predicate::less_equal<T>(c));
    p.push_back(Predicate::greater<T>(c));
    p.push_back(Predicate::greater_equal<T>(c));
    p.push_back(Predicate::in_range<T>(0x40000000ffffffffu, 0xC000000000000001u));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    p.push_back(Predicate::equal<T>(-0x1234567890));
    p.push_back(Predicate::not_equal<T>(-0x1234567890));
    p.push_back(Predicate::less<T>(-1));
    p.push_back(Predicate::less_equal<T>(0));
    p.push_back(Predicate::greater<T>(int64_t{1} << 32));
    p.push_back(Predicate::greater_equal<T>(0));
    p.push_back(Predicate::in_range<T>(-(int64_t{1} << 62), (int64_t{1} << 62) + 5));
  } else {
    p.push_back(Predicate::equal<T>(T(3.5)));
    p.push_back(Predicate::not_equal<T>(T(3.5)));
    p.push_back(Predicate::less<T>(T(0.25)));
    p.push_back(Predicate::less_equal<T>(T(0.25)));
    p.push_back(Predicate::greater<T>(T(0.25)));
    p.push_back(Predicate::greater_equal<T>(T(0.25)));
    p.push_back(Predicate::in_range<T>(T(-1), T(1)));
  }
  p.push_back(Predicate::bits_set(0x10u));
  // 8-byte types: a mask in the high word too (f64: the lowest exponent bit).
  if constexpr (sizeof(T) == 8) p.push_back(Predicate::bits_set(0x0010000000000001u));
  return p;
}

// Values for which `keep(v)` holds with probability `density` (exactly never / always at 0 and 1).
// Candidates are random values or, six times in sixteen, zero, the predicate's own constants or their
// neighbours (boundaries; for 8-byte types the neighbour of a constant whose low word is all ones or
// zero differs in its high word).
template <class T, class Keep>
std::vector<T> values_with_density(size_t n, double density, Keep keep, const Predicate& p, std::mt19937_64& rng) {
  std::bernoulli_distribution want(density);
  std::vector<T> v(n);
  for (auto& x : v) {
    const bool w = want(rng);
    for (int tries = 0;; ++tries) {
      T c = random_values<T>(1, rng)[0];
      switch (rng() % 16) {
        case 0: c = Predicate::value<T>(p.a); break;
        case 1: c = Predicate::value<T>(p.b); break;
        case 2: c = T(0); break;
        case 3: c = Predicate::value<T>(p.a + 1); break;
        case 4: c = Predicate::value<T>(p.a - 1); break;
        case 5: c = Predicate::value<T>(p.b + 1); break;
        default: break;
      }
      // A neighbour of 0 is subnormal, which devices may flush to zero before comparing.
      if constexpr (std::is_floating_point_v<T>)
        if (std::fpclassify(c) == FP_SUBNORMAL) continue;
      if (keep(c) == w) {
        x = c;
        break;
      }
      if (tries > 10000) throw std::runtime_error("cannot generate test data");
    }
  }
  return v;
}

template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    if (Predicate::bits(got[i]) != Predicate::bits(want[i])) {
      ADD_FAILURE() << what << ": first difference at " << i << ": got " << got[i] << ", want " << want[i];
      return;
    }
}

struct Param {
  DataType type;
  CompactPath path;
  CompactAlgorithm algorithm = CompactAlgorithm::three_pass;
};

inline std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(to_string(info.param.type)) + "_" + (info.param.path == CompactPath::ballot ? "ballot" : "shared") +
         (info.param.algorithm == CompactAlgorithm::single_pass ? "_single_pass" : "_three_pass");
}

// The differential checks of every compaction call, for either backend: `Ctx` is gpuscan::Context or
// gpuscan::gl::Context, and the unqualified calls (select_if(ctx, ...), ...) find that backend's
// functions by argument-dependent lookup. `Base` is the backend's test fixture.
template <class Ctx, class Base>
class CompactChecks : public Base, public ::testing::WithParamInterface<Param> {
 protected:
  explicit CompactChecks(const Ctx& context) : ctx(context) {}
  const Ctx& ctx;
  uint64_t seed = fresh_seed();
  std::mt19937_64 rng{seed};

  using ::testing::WithParamInterface<Param>::GetParam;
  bool single_pass() const { return GetParam().algorithm == CompactAlgorithm::single_pass; }
  // The device's shared memory, where a fixture knows it: single-pass shapes whose stage exceeds it take
  // half the K (8-byte elements stage twice the bytes: W = 128, K = 8 of them fill lavapipe's 32 KiB).
  uint64_t shared_memory_bytes = std::numeric_limits<uint64_t>::max();
  CompactConfig config(uint32_t w = small_w, uint32_t k = 1, uint32_t spin_limit = 0,
                       uint32_t tiles_per_workgroup = 0) const {
    const core::TileShape shape{w ? w : core::default_workgroup_size, k};
    if (single_pass() && k > 1 &&
        core::compact_single_pass_shared_bytes(shape, element_size(GetParam().type)) > shared_memory_bytes)
      k /= 2;
    return {GetParam().type, GetParam().path, w, k, GetParam().algorithm, spin_limit, tiles_per_workgroup};
  }
  // Partitions run three-pass only; the single-pass instances check that they say so, then skip (a
  // partition test that ran no partition must not report a pass).
  bool skip_partition() const {
    if (!single_pass()) return false;
    for (size_t n : {size_t{10}, size_t{0}}) {  // an empty input is refused as well, not returned empty
      std::vector<uint32_t> v(n);
      try {
        partition(ctx, std::span<const uint32_t>(v), Predicate::nonzero(), config());
        ADD_FAILURE() << "a single-pass partition of " << n << " elements did not throw";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::unsupported) << e.what();
      }
    }
    return true;
  }

  template <class T>
  void check_select_if(const Predicate& p, size_t n, double density, const CompactConfig& cfg) {
    const auto keep = [&](T v) { return p.holds(v); };
    const std::vector<T> in = values_with_density<T>(n, density, keep, p, rng);
    std::vector<T> want;
    std::copy_if(in.begin(), in.end(), std::back_inserter(want), keep);
    std::ostringstream what;
    what << "select_if " << to_string(p.kind) << " n=" << n << " density=" << density << " W=" << cfg.workgroup_size
         << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    expect_same(select_if(ctx, std::span<const T>(in), p, cfg), want, what.str());
  }

  template <class T>
  void check_select_flagged(size_t n, double density, const CompactConfig& cfg) {
    const std::vector<T> in = random_values<T>(n, rng);
    std::vector<uint32_t> flags(n);
    std::bernoulli_distribution want(density);
    for (auto& f : flags) f = want(rng) ? static_cast<uint32_t>(rng() | 1u) : 0u;
    std::vector<T> expected;
    for (size_t i = 0; i < n; ++i)
      if (flags[i]) expected.push_back(in[i]);
    std::ostringstream what;
    what << "select_flagged n=" << n << " density=" << density << " W=" << cfg.workgroup_size
         << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    expect_same(select_flagged(ctx, std::span<const T>(in), std::span<const uint32_t>(flags), cfg), expected,
                what.str());
  }

  template <class T>
  void check_partition_if(const Predicate& p, size_t n, double density, const CompactConfig& cfg) {
    const auto keep = [&](T v) { return p.holds(v); };
    const std::vector<T> in = values_with_density<T>(n, density, keep, p, rng);
    std::vector<T> want = in;
    const size_t kept = std::stable_partition(want.begin(), want.end(), keep) - want.begin();
    std::ostringstream what;
    what << "partition " << to_string(p.kind) << " n=" << n << " density=" << density << " W=" << cfg.workgroup_size
         << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    const PartitionResult<T> got = partition(ctx, std::span<const T>(in), p, cfg);
    EXPECT_EQ(got.kept, kept) << what.str();
    expect_same(got.values, want, what.str());
  }

  template <class T>
  void check_partition_flagged(size_t n, double density, const CompactConfig& cfg) {
    const std::vector<T> in = random_values<T>(n, rng);
    std::vector<uint32_t> flags(n);
    std::bernoulli_distribution want(density);
    for (auto& f : flags) f = want(rng) ? static_cast<uint32_t>(rng() | 1u) : 0u;
    std::vector<T> expected, rejected;
    for (size_t i = 0; i < n; ++i) (flags[i] ? expected : rejected).push_back(in[i]);
    const size_t kept = expected.size();
    expected.insert(expected.end(), rejected.begin(), rejected.end());
    std::ostringstream what;
    what << "partition_flagged n=" << n << " density=" << density << " W=" << cfg.workgroup_size
         << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    const PartitionResult<T> got =
        partition_flagged(ctx, std::span<const T>(in), std::span<const uint32_t>(flags), cfg);
    EXPECT_EQ(got.kept, kept) << what.str();
    expect_same(got.values, expected, what.str());
  }

  template <class T>
  void partition_every_predicate_and_density() {
    size_t round = 3;
    for (const Predicate& p : predicates<T>())
      for (double d : densities) check_partition_if<T>(p, sizes[round++ % std::size(sizes)], d, config());
    for (double d : densities) check_partition_flagged<T>(sizes[round++ % std::size(sizes)], d, config());
  }

  template <class T>
  void partition_every_size() {
    for (size_t n : sizes)
      for (double d : {0.0, 0.01, 0.5, 0.99, 1.0}) {
        check_partition_flagged<T>(n, d, config());
        check_partition_if<T>(Predicate::nonzero(), n, d, config());
      }
  }

  template <class T>
  void partition_other_tile_shapes() {
    check_partition_if<T>(Predicate::bits_set(0x4u), 100003, 0.5, config(0, 0));  // W = 256, K = 4
    check_partition_flagged<T>(70001, 0.3, config(0, 0));
    check_partition_if<T>(Predicate::nonzero(), 5000, 0.5, config(64, 2));
    check_partition_flagged<T>(4096 * 3 + 5, 0.99, config(128, 8));
  }

  template <class T>
  void every_predicate_and_density() {
    size_t round = 0;
    for (const Predicate& p : predicates<T>())
      for (double d : densities) check_select_if<T>(p, sizes[round++ % std::size(sizes)], d, config());
    for (double d : densities) check_select_flagged<T>(sizes[round++ % std::size(sizes)], d, config());
  }

  template <class T>
  void every_size() {
    for (size_t n : sizes)
      for (double d : {0.0, 0.01, 0.5, 1.0}) {
        check_select_flagged<T>(n, d, config());
        check_select_if<T>(Predicate::nonzero(), n, d, config());
      }
  }

  template <class T>
  void other_tile_shapes() {
    check_select_if<T>(Predicate::bits_set(0x4u), 100003, 0.5, config(0, 0));  // W = 256, K = 4
    check_select_flagged<T>(70001, 0.3, config(0, 0));
    check_select_if<T>(Predicate::nonzero(), 5000, 0.5, config(64, 2));
    check_select_flagged<T>(4096 * 3 + 5, 0.99, config(128, 8));
    // K = 8 with flags at low densities too (many rows with nothing kept: the three-pass scatter skips
    // their values).
    for (double d : {0.01, 0.3}) check_select_flagged<T>(4096 * 5 + 3, d, config(128, 8));
  }

  // The single-pass plan with spin limit 1: waiting tiles soon count their predecessors' kept elements
  // themselves, so the fallback runs often (and races the owners' own publishing).
  template <class T>
  void forced_fallback() {
    for (size_t n : {size_t{257}, size_t{1000}, size_t{128 * 128}, size_t{129 * 128 + 1}})
      for (double d : densities) {
        check_select_flagged<T>(n, d, config(small_w, 1, 1));
        check_select_if<T>(Predicate::greater<T>(T(0)), n, d, config(small_w, 1, 1));
      }
    check_select_flagged<T>(70001, 0.5, config(0, 0, 1));
  }

  // The single-pass plan with several tiles per workgroup (CompactConfig::tiles_per_workgroup): a
  // workgroup holds a staged tile while it ranks the next, then looks back for the held one. With the
  // default spin limit and with 1 (the fallback counts a predecessor while a tile is held); small tiles,
  // so that the loop runs many times, and the shapes of other_tile_shapes. Each run draws one of the four
  // (tiles, spin) pairs: each pair is five shapes' pipelines to compile, which on lavapipe, cold, made this
  // test 30 s of every type's instance. A CI run's instances (three types at three subgroup sizes) draw
  // a given pair with probability 1 - 0.75^9 = 0.92; a failure's trace names the pair.
  template <class T>
  void several_tiles_per_workgroup() {
    const uint32_t tiles = rng() % 2 ? 4u : 2u;
    const uint32_t spin = static_cast<uint32_t>(rng() % 2);
    SCOPED_TRACE("tiles per workgroup " + std::to_string(tiles) + ", spin limit " + std::to_string(spin));
    for (size_t n : {size_t{257}, size_t{129 * 128 + 1}})
      for (double d : densities) {
        check_select_flagged<T>(n, d, config(small_w, 1, spin, tiles));
        check_select_if<T>(Predicate::greater<T>(T(0)), n, d, config(small_w, 1, spin, tiles));
      }
    check_select_if<T>(Predicate::nonzero(), 5000, 0.5, config(64, 2, spin, tiles));
    check_select_flagged<T>(70001, 0.5, config(0, 0, spin, tiles));
    check_select_flagged<T>(4096 * 3 + 5, 0.99, config(128, 8, spin, tiles));
  }

  // Floats: NaNs of several kinds (quiet, signalling, negative with a payload), -0, +0 and the infinities
  // among random values, under every predicate and under predicates on -0 and NaN: as on the host, NaN
  // compares false except under not_equal (and nonzero), and -0 equals 0.
  template <class T>
  void nan_and_signed_zero() {
    using Limits = std::numeric_limits<T>;
    std::vector<Predicate> ps = predicates<T>();
    for (const T c : {T(-0.0), Limits::quiet_NaN()}) {
      ps.push_back(Predicate::equal<T>(c));
      ps.push_back(Predicate::not_equal<T>(c));
      ps.push_back(Predicate::less_equal<T>(c));
      ps.push_back(Predicate::greater_equal<T>(c));
    }
    ps.push_back(Predicate::in_range<T>(T(-0.0), T(0)));
    const T specials[] = {T(0), T(-0.0), Limits::infinity(), -Limits::infinity(), Limits::quiet_NaN(),
                          -Limits::quiet_NaN()};
    for (const Predicate& p : ps) {
      const size_t n = 1000 + rng() % 3000;
      std::vector<T> in = random_values<T>(n, rng);
      for (auto& x : in)
        if (rng() % 4 == 0) x = specials[rng() % std::size(specials)];
      in = with_nans(std::move(in), rng);
      const auto keep = [&](T v) { return p.holds(v); };
      std::vector<T> want;
      std::copy_if(in.begin(), in.end(), std::back_inserter(want), keep);
      std::ostringstream what;
      what << "select_if " << to_string(p.kind) << " a=0x" << std::hex << p.a << std::dec << " n=" << n
           << " seed=" << seed;
      expect_same(select_if(ctx, std::span<const T>(in), p, config()), want, what.str());
      if (single_pass()) continue;  // partitions run three-pass only
      std::vector<T> parted = in;
      const size_t kept = std::stable_partition(parted.begin(), parted.end(), keep) - parted.begin();
      const PartitionResult<T> got = partition(ctx, std::span<const T>(in), p, config());
      EXPECT_EQ(got.kept, kept) << what.str();
      expect_same(got.values, parted, "partition: " + what.str());
    }
  }

  // Runs of equal elements, of lengths 1 to max_run, their values drawn from a small alphabet (so a run
  // may equal the one before it: one longer run) that for floats holds -0, +0, NaN and the infinities.
  template <class T>
  std::vector<T> runs_of(size_t n, uint32_t max_run) {
    std::vector<T> alphabet = random_values<T>(6, rng);
    if constexpr (std::is_floating_point_v<T>) {
      using Limits = std::numeric_limits<T>;
      alphabet.insert(alphabet.end(), {T(0), T(-0.0), Limits::quiet_NaN(), Limits::infinity(), -Limits::infinity()});
    } else {
      alphabet.insert(alphabet.end(), {T(0), std::numeric_limits<T>::max()});
    }
    std::vector<T> v;
    v.reserve(n);
    while (v.size() < n) {
      const T x = alphabet[rng() % alphabet.size()];
      v.insert(v.end(), std::min<size_t>(1 + rng() % max_run, n - v.size()), x);
    }
    return v;
  }

  // select_if and (three-pass) partition_if with Predicate::run_start against std::unique_copy's rule.
  template <class T>
  void check_run_starts(size_t n, uint32_t max_run, const CompactConfig& cfg) {
    const std::vector<T> in = runs_of<T>(n, max_run);
    std::vector<T> firsts, repeats;
    for (size_t i = 0; i < n; ++i)
      (Predicate::run_start().holds(in[i], i ? &in[i - 1] : nullptr) ? firsts : repeats).push_back(in[i]);
    std::ostringstream what;
    what << "run_start n=" << n << " runs up to " << max_run << " W=" << cfg.workgroup_size
         << " K=" << cfg.vectors_per_lane << " seed=" << seed;
    expect_same(unique(ctx, std::span<const T>(in), cfg), firsts, what.str());
    if (single_pass()) return;  // partitions run three-pass only
    const PartitionResult<T> got = partition(ctx, std::span<const T>(in), Predicate::run_start(), cfg);
    EXPECT_EQ(got.kept, firsts.size()) << what.str();
    firsts.insert(firsts.end(), repeats.begin(), repeats.end());
    expect_same(got.values, firsts, "partition: " + what.str());
  }

  template <class T>
  void run_starts() {
    size_t round = 0;
    for (const size_t n : sizes)
      for (const uint32_t max_run : {1u, 3u, 40u, 1000u})
        check_run_starts<T>(n, max_run, round++ % 3 ? config() : config(0, 4));
    check_run_starts<T>(5000, 5000, config());  // one run, or a few
  }

  template <class F>
  void for_type(F&& f) {
    switch (GetParam().type) {
      case DataType::u32: f(uint32_t{}); break;
      case DataType::i32: f(int32_t{}); break;
      case DataType::f32: f(float{}); break;
      case DataType::u64: f(uint64_t{}); break;
      case DataType::i64: f(int64_t{}); break;
      case DataType::f64: f(double{}); break;
    }
  }
};

// Every type with both paths, three-pass (the ballot one is skipped where the device has no ballots).
inline auto every_compact_param() {
  return ::testing::Values(Param{DataType::u32, CompactPath::ballot}, Param{DataType::u32, CompactPath::shared_memory},
                           Param{DataType::i32, CompactPath::ballot}, Param{DataType::i32, CompactPath::shared_memory},
                           Param{DataType::f32, CompactPath::ballot}, Param{DataType::f32, CompactPath::shared_memory});
}

#define COMPACT_TESTS(Fixture)  \
TEST_P(Fixture, EveryPredicateAndDensityMatchesCopyIf) {  \
  for_type([&](auto t) { every_predicate_and_density<decltype(t)>(); });  \
}  \
TEST_P(Fixture, SizesAroundTileBoundaries) {  \
  for_type([&](auto t) { every_size<decltype(t)>(); });  \
}  \
TEST_P(Fixture, OtherTileShapes) {  \
  for_type([&](auto t) { other_tile_shapes<decltype(t)>(); });  \
}  \
TEST_P(Fixture, PartitionEveryPredicateAndDensityMatchesStablePartition) {  \
  if (skip_partition()) GTEST_SKIP() << "partitions run three-pass only; the single-pass one was refused";  \
  for_type([&](auto t) { partition_every_predicate_and_density<decltype(t)>(); });  \
}  \
TEST_P(Fixture, PartitionSizesAroundTileBoundaries) {  \
  if (skip_partition()) GTEST_SKIP() << "partitions run three-pass only; the single-pass one was refused";  \
  for_type([&](auto t) { partition_every_size<decltype(t)>(); });  \
}  \
TEST_P(Fixture, NanAndSignedZeroMatchTheHost) {  \
  if (GetParam().type != DataType::f32 && GetParam().type != DataType::f64) GTEST_SKIP() << "not a float type";  \
  for_type([&](auto t) {  \
    if constexpr (std::is_floating_point_v<decltype(t)>) nan_and_signed_zero<decltype(t)>();  \
  });  \
}  \
TEST_P(Fixture, RunStartsMatchUniqueCopy) {  \
  for_type([&](auto t) { run_starts<decltype(t)>(); });  \
}  \
TEST_P(Fixture, PartitionOtherTileShapes) {  \
  if (skip_partition()) GTEST_SKIP() << "partitions run three-pass only; the single-pass one was refused";  \
  for_type([&](auto t) { partition_other_tile_shapes<decltype(t)>(); });  \
}

}  // namespace gpuscan::test
