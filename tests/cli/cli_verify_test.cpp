// Unit tests of the CLI's result check (tools/gpuscan/verify.*), used by `scan --verify` and `demo`.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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

}  // namespace
}  // namespace gpuscan::cli
