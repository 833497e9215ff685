// Unit tests of the CLI's result check (tools/gpuscan/verify.*), used by `scan --verify` and `demo`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "io.hpp"
#include "verify.hpp"

namespace gpuscan::cli {
namespace {

template <class T>
std::optional<Mismatch> check(const std::vector<T>& in, const std::vector<T>& out, ScanKind kind) {
  return verify_scan(std::as_bytes(std::span(in)), std::as_bytes(std::span(out)), data_type_of<T>::value, kind);
}

TEST(CliVerify, AcceptsCorrectIntegerScans) {
  const std::vector<uint32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  EXPECT_FALSE(check<uint32_t>(in, {0, 3, 4, 11, 11, 15, 16, 22}, ScanKind::exclusive));
  EXPECT_FALSE(check<uint32_t>(in, {3, 4, 11, 11, 15, 16, 22, 25}, ScanKind::inclusive));
  EXPECT_FALSE(check<uint32_t>({}, {}, ScanKind::inclusive));
}

TEST(CliVerify, IntegerSumsWrapLikeTheGpu) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_FALSE(check<int32_t>({max, 1, -1}, {max, min, max}, ScanKind::inclusive));
  EXPECT_FALSE(check<uint32_t>({4294967295u, 2}, {0, 4294967295u}, ScanKind::exclusive));
}

TEST(CliVerify, ReportsFirstIntegerMismatchAndCount) {
  const auto m = check<int32_t>({1, 2, 3, 4, 5}, {0, 1, 99, 6, 11}, ScanKind::exclusive);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 2u);
  EXPECT_EQ(m->count, 2u);
  EXPECT_EQ(to_string(*m), "MISMATCH at index 2: got 99, expected 3 (2 of 5 elements differ)");
}

TEST(CliVerify, FloatsWithinToleranceMatch) {
  const std::vector<float> in = {0.1f, 0.2f, 0.3f, 0.4f};
  // Sums as a different association order might give them, one ulp or so off.
  EXPECT_FALSE(check<float>(in, {0.1f, 0.3f, 0.6f, 1.0f}, ScanKind::inclusive));
  EXPECT_FALSE(check<float>(in, {0.0f, 0.1f, 0.30000001f, 0.6f}, ScanKind::exclusive));
}

TEST(CliVerify, FloatsOutsideToleranceDoNot) {
  const auto m = check<float>({1.0f, 1.0f, 1.0f}, {1.0f, 2.0f, 3.01f}, ScanKind::inclusive);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 2u);
  EXPECT_NE(to_string(*m).find("MISMATCH at index 2: got 3.01, expected 3 +- "), std::string::npos)
      << to_string(*m);
}

TEST(CliVerify, NanMatchesOnlyNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(check<float>({1.0f, nan}, {1.0f, nan}, ScanKind::inclusive));
  EXPECT_TRUE(check<float>({1.0f, nan}, {1.0f, 2.0f}, ScanKind::inclusive));
}

// Float min and max propagate NaN (include/gpuscan/types.hpp): what a GPU that ignored the NaN, as
// GLSL's min() and the subgroup min may, would give is a mismatch.
TEST(CliVerify, MinMaxPropagateNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {1.0f, nan, 3.0f, 0.5f, 7.0f};
  auto scan_check = [&](const std::vector<float>& out, ScanKind kind, Op op) {
    return verify_scan(std::as_bytes(std::span(in)), std::as_bytes(std::span(out)), DataType::f32, kind, op);
  };
  EXPECT_FALSE(scan_check({1.0f, nan, nan, nan, nan}, ScanKind::inclusive, Op::max));
  EXPECT_FALSE(scan_check({-std::numeric_limits<float>::infinity(), 1.0f, nan, nan, nan}, ScanKind::exclusive, Op::max));
  const auto m = scan_check({1.0f, 1.0f, 3.0f, 3.0f, 7.0f}, ScanKind::inclusive, Op::max);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 1u);
  EXPECT_EQ(m->count, 4u);
  const float ignored = 0.5f, propagated = nan;
  EXPECT_TRUE(verify_reduce(std::as_bytes(std::span(in)), std::as_bytes(std::span(&ignored, 1)), DataType::f32, Op::min));
  EXPECT_FALSE(verify_reduce(std::as_bytes(std::span(in)), std::as_bytes(std::span(&propagated, 1)), DataType::f32, Op::min));
}

TEST(CliVerify, WrongLengthIsAMismatch) {
  const auto m = check<uint32_t>({1, 2, 3}, {0, 1}, ScanKind::exclusive);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 2u);
  EXPECT_TRUE(check<uint32_t>({1}, {0, 1}, ScanKind::exclusive));
}

TEST(CliVerify, OperatorsAndSixtyFourBitTypes) {
  const std::vector<int64_t> in = {-40, 12, 7, -3, 25, 0};
  auto scan_check = [&](const std::vector<int64_t>& out, Op op) {
    return verify_scan(std::as_bytes(std::span(in)), std::as_bytes(std::span(out)), DataType::i64, ScanKind::inclusive, op);
  };
  EXPECT_FALSE(scan_check({-40, -40, -40, -40, -40, -40}, Op::min));
  EXPECT_FALSE(scan_check({-40, 12, 12, 12, 25, 25}, Op::max));
  const auto m = scan_check({-40, 12, 12, 12, 25, 24}, Op::max);
  ASSERT_TRUE(m);
  EXPECT_EQ(to_string(*m), "MISMATCH at index 5: got 24, expected 25 (1 of 6 elements differ)");
  // u64 products wrap: 2^40 * 2^30 = 0 mod 2^64.
  const std::vector<uint64_t> factors = {uint64_t{1} << 40, uint64_t{1} << 30};
  const std::vector<uint64_t> products = {uint64_t{1} << 40, 0};
  EXPECT_FALSE(verify_scan(std::as_bytes(std::span(factors)), std::as_bytes(std::span(products)), DataType::u64,
                           ScanKind::inclusive, Op::mul));
}

TEST(CliVerify, Reductions) {
  auto reduce_check = [](const auto& in, auto result, DataType type, Op op) {
    return verify_reduce(std::as_bytes(std::span(in)), std::as_bytes(std::span(&result, 1)), type, op);
  };
  const std::vector<int64_t> in = {-40, 12, 7, -3, 25, 0};
  EXPECT_FALSE(reduce_check(in, int64_t{1}, DataType::i64, Op::add));
  EXPECT_FALSE(reduce_check(in, int64_t{-40}, DataType::i64, Op::min));
  const auto m = reduce_check(in, int64_t{7}, DataType::i64, Op::max);
  ASSERT_TRUE(m);
  EXPECT_EQ(to_string(*m), "MISMATCH at index 0: got 7, expected 25 (1 of 1 elements differ)");
  EXPECT_FALSE(reduce_check(std::vector<float>{}, std::numeric_limits<float>::infinity(), DataType::f32, Op::min));
  // Float sums within rounding of the exact sum; far off is a mismatch.
  const std::vector<double> halves(1000, 0.1);
  EXPECT_FALSE(reduce_check(halves, 100.00000000000001, DataType::f64, Op::add));
  EXPECT_TRUE(reduce_check(halves, 100.001, DataType::f64, Op::add));
}

// --- Floats in another order than the reference's (verify.hpp, "Floats") --------------------------------

// An inclusive scan in T by recursive doubling (Hillis-Steele): a tree order a GPU may take, in input order.
template <class T>
std::vector<T> doubling_scan(std::vector<T> x, Op op) {
  for (size_t d = 1; d < x.size(); d *= 2) {
    std::vector<T> next = x;
    for (size_t i = d; i < x.size(); ++i) next[i] = op == Op::mul ? x[i - d] * x[i] : x[i - d] + x[i];
    x = std::move(next);
  }
  return x;
}

template <class T>
std::optional<Mismatch> check_op(const std::vector<T>& in, const std::vector<T>& out, Op op,
                                 ScanKind kind = ScanKind::inclusive) {
  return verify_scan(std::as_bytes(std::span(in)), std::as_bytes(std::span(out)), data_type_of<T>::value, kind, op);
}

template <class T>
std::optional<Mismatch> check_reduce(const std::vector<T>& in, T result, Op op) {
  return verify_reduce(std::as_bytes(std::span(in)), std::as_bytes(std::span(&result, 1)), data_type_of<T>::value, op);
}

// Sums near the largest float overflow in one order and not in another: the doubling order's +inf, or
// NaN from +inf and -inf, is correct where the positive (negative) elements' sum passes the range.
TEST(CliVerify, FloatSumsMayOverflowInAnotherOrder) {
  const float big = 3e38f, inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {big, big, -big, -big};
  // (big + big) + -big = inf; (big + big) + (-big + -big) = inf - inf = NaN
  EXPECT_FALSE(check_op<float>(in, {big, inf, inf, nan}, Op::add));
  EXPECT_FALSE(check_op<float>(in, doubling_scan(in, Op::add), Op::add));
  EXPECT_FALSE(check_reduce<float>(in, nan, Op::add));
  EXPECT_FALSE(check_op<float>(in, {big, inf, big, 0.0f}, Op::add));  // the sequential order
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::vector<float> x(1000);
    for (auto& v : x) v = std::uniform_real_distribution<float>(-3.4e38f, 3.4e38f)(rng);
    EXPECT_FALSE(check_op<float>(x, doubling_scan(x, Op::add), Op::add));
    const auto prefix = doubling_scan(x, Op::add);
    EXPECT_FALSE(check_reduce<float>(x, prefix.back(), Op::add));
    std::vector<double> wide(x.begin(), x.end());
    const auto wide_prefix = doubling_scan(wide, Op::add);
    EXPECT_FALSE(check_op<double>(wide, wide_prefix, Op::add));
  }
}

// ... and what no order can give is still a mismatch.
TEST(CliVerify, FloatSumsThatNoOrderGivesAreCaught) {
  const float big = 3e38f, inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // Only the positive part may overflow: -inf or NaN are wrong, and so is a finite value far off.
  const std::vector<float> in = {big, big, -1.0f};
  EXPECT_FALSE(check_op<float>(in, {big, inf, inf}, Op::add));
  EXPECT_TRUE(check_op<float>(in, {big, inf, -inf}, Op::add));
  EXPECT_TRUE(check_op<float>(in, {big, inf, nan}, Op::add));
  EXPECT_TRUE(check_op<float>(in, {big, 1e30f, inf}, Op::add));
  // Far from the range, as before: infinities and values off by a thousand times the bound.
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::vector<float> x(1000);
    for (auto& v : x) v = std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng);
    auto out = doubling_scan(x, Op::add);
    const size_t i = rng() % x.size();
    out[i] += 1000 * 28 * std::numeric_limits<float>::epsilon() * 100.0f * static_cast<float>(i + 1);
    const auto m = check_op<float>(x, out, Op::add);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->index, i);
    out = doubling_scan(x, Op::add);
    out[i] = inf;
    EXPECT_TRUE(check_op<float>(x, out, Op::add));
  }
}

// A product of k factors in any order is within about (k - 1) u of the exact one; the doubling order's
// error grows with k, past the 2 log2(n) + 8 ulps allowed before.
TEST(CliVerify, FloatProductsInAnotherOrderWithinTheirLength) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    // +-2^e with the running exponent kept within +-60: no run overflows or goes subnormal.
    auto factors = [&rng](auto zero, size_t n) {
      using T = decltype(zero);
      std::vector<T> x(n);
      double level = 0;
      for (auto& v : x) {
        double step = std::uniform_real_distribution<double>(-1, 1)(rng);
        if (std::fabs(level + step) > 60) step = -step;
        level += step;
        v = static_cast<T>((rng() % 2 ? -1.0 : 1.0) * std::exp2(step));
      }
      return x;
    };
    const auto f = factors(0.0f, 100000);
    EXPECT_FALSE(check_op<float>(f, doubling_scan(f, Op::mul), Op::mul));
    EXPECT_FALSE(check_reduce<float>(f, doubling_scan(f, Op::mul).back(), Op::mul));
    const auto d = factors(0.0, 100000);
    EXPECT_FALSE(check_op<double>(d, doubling_scan(d, Op::mul), Op::mul));
    EXPECT_FALSE(check_reduce<double>(d, doubling_scan(d, Op::mul).back(), Op::mul));
    // Off by ten times the bound (k - 1) eps: caught.
    auto off = doubling_scan(f, Op::mul);
    const size_t i = 1 + rng() % 999;
    off[i] *= 1 + 10 * static_cast<float>(i) * std::numeric_limits<float>::epsilon();
    const auto m = check_op<float>(f, off, Op::mul);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->index, i);
    EXPECT_TRUE(check_reduce<float>(f, off.back() * 1.01f, Op::mul));
    off = doubling_scan(f, Op::mul);
    off[i] = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(check_op<float>(f, off, Op::mul));  // no run comes near the range's end
  }
}

// Products whose runs leave the normal range: a subnormal intermediate rounds absolutely, and an
// overflowing run gives inf (with the product's sign) or, with a zero, NaN.
TEST(CliVerify, FloatProductsPastTheNormalRange) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // (1.1 * 2^-100 * 1.3 * 2^-40): subnormal, 9 significant bits; * 1.7 * 2^100 brings it back.
  const std::vector<float> in = {std::ldexp(1.1f, -100), std::ldexp(1.3f, -40), std::ldexp(1.7f, 100)};
  const float tree = (in[0] * in[1]) * in[2];
  EXPECT_FALSE(check_op<float>(in, {in[0], in[0] * in[1], tree}, Op::mul));
  EXPECT_FALSE(check_reduce<float>(in, tree, Op::mul));
  EXPECT_TRUE(check_reduce<float>(in, tree * 1.1f, Op::mul));  // 10 %: more than the subnormal's rounding
  // 2^100 * 2^100 overflows, * 2^-100 gives 2^100 in the other order; with a zero, inf * 0 = NaN.
  const std::vector<float> up = {std::ldexp(-1.0f, 100), std::ldexp(1.0f, 100), std::ldexp(1.0f, -100)};
  EXPECT_FALSE(check_op<float>(up, {up[0], -inf, -inf}, Op::mul));
  EXPECT_FALSE(check_op<float>(up, {up[0], -inf, std::ldexp(-1.0f, 100)}, Op::mul));
  EXPECT_TRUE(check_op<float>(up, {up[0], -inf, inf}, Op::mul));  // the sign is the same in every order
  EXPECT_TRUE(check_op<float>(up, {up[0], -inf, nan}, Op::mul));
  const std::vector<float> with_zero = {std::ldexp(1.0f, 100), std::ldexp(1.0f, 100), 0.0f};
  EXPECT_FALSE(check_reduce<float>(with_zero, nan, Op::mul));
  EXPECT_FALSE(check_reduce<float>(with_zero, 0.0f, Op::mul));
  EXPECT_TRUE(check_reduce<float>(with_zero, inf, Op::mul));
  // Far inside the range a zero factor makes every order's product zero.
  EXPECT_TRUE(check_reduce<float>({2.0f, 0.0f, 3.0f}, nan, Op::mul));
}

}  // namespace
}  // namespace gpuscan::cli
