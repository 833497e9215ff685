// gpuscan::parse_predicate: the predicate syntax of `gpuscan compact --pred` and the Python module.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"

namespace {

using gpuscan::DataType;
using gpuscan::Predicate;
using gpuscan::parse_predicate;

TEST(PredicateText, EveryFormInItsType) {
  EXPECT_EQ(parse_predicate("nonzero", DataType::f32), Predicate::nonzero());
  EXPECT_EQ(parse_predicate("gt:100", DataType::u32), Predicate::greater(100u));
  EXPECT_EQ(parse_predicate("ge:4294967295", DataType::u32), Predicate::greater_equal(4294967295u));
  EXPECT_EQ(parse_predicate("lt:-5", DataType::i32), Predicate::less(-5));
  EXPECT_EQ(parse_predicate("le:2147483647", DataType::i32), Predicate::less_equal(2147483647));
  EXPECT_EQ(parse_predicate("eq:1.5", DataType::f32), Predicate::equal(1.5f));
  EXPECT_EQ(parse_predicate("ne:-2.5e3", DataType::f32), Predicate::not_equal(-2500.0f));
  EXPECT_EQ(parse_predicate("range:-1:1", DataType::f32), Predicate::in_range(-1.0f, 1.0f));
  EXPECT_EQ(parse_predicate("range:10:20", DataType::u32), Predicate::in_range(10u, 20u));
  EXPECT_EQ(parse_predicate("bit:0x10", DataType::i32), Predicate::bits_set(0x10u));
  EXPECT_EQ(parse_predicate("bit:7", DataType::u32), Predicate::bits_set(7u));
  EXPECT_EQ(parse_predicate("run-start", DataType::f64), Predicate::run_start());
  EXPECT_THROW(parse_predicate("run-start:1", DataType::u32), gpuscan::Error);
}

TEST(PredicateText, MalformedIsInvalidArgumentNamingTheForms) {
  for (const char* text : {"big:3", "gt:abc", "gt:", "lt", "range:1", "range:a:2", "bit:0xZZ", "nonzero:1",
                           "eq:1.5", "gt: 1", ""}) {
    try {
      parse_predicate(text, DataType::u32);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const gpuscan::Error& e) {
      EXPECT_EQ(e.code(), gpuscan::Errc::invalid_argument) << text;
      const std::string what = e.what();
      EXPECT_NE(what.find("invalid predicate '" + std::string(text) + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(gpuscan::predicate_forms), std::string::npos) << what;
    }
  }
}

// 64-bit constants: the whole range of u64 and i64, f64 beyond f32's, masks of 64 bits.
TEST(PredicateText, SixtyFourBitConstants) {
  EXPECT_EQ(parse_predicate("ge:18446744073709551615", DataType::u64), Predicate::greater_equal(~uint64_t{0}));
  EXPECT_EQ(parse_predicate("eq:0x123456789abcdef0", DataType::u64), Predicate::equal(uint64_t{0x123456789abcdef0}));
  EXPECT_EQ(parse_predicate("le:-0", DataType::u64), Predicate::less_equal(uint64_t{0}));
  EXPECT_EQ(parse_predicate("lt:-9223372036854775808", DataType::i64),
            Predicate::less(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(parse_predicate("range:-0x100000000:9223372036854775807", DataType::i64),
            Predicate::in_range(-(int64_t{1} << 32), std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(parse_predicate("gt:1e300", DataType::f64), Predicate::greater(1e300));
  EXPECT_EQ(parse_predicate("ne:-0", DataType::f64), Predicate::not_equal(-0.0));
  EXPECT_EQ(parse_predicate("bit:0x8000000000000000", DataType::f64), Predicate::bits_set(uint64_t{1} << 63));
  // A 32-bit element takes a 32-bit mask only.
  EXPECT_THROW(parse_predicate("bit:0x100000000", DataType::u32), gpuscan::Error);
  EXPECT_EQ(parse_predicate("bit:0x100000000", DataType::i64), Predicate::bits_set(uint64_t{1} << 32));
}

TEST(PredicateText, IntegerConstantsInHex) {
  EXPECT_EQ(parse_predicate("gt:0x10", DataType::u32), Predicate::greater(16u));
  EXPECT_EQ(parse_predicate("eq:0XfFfFfFfF", DataType::u32), Predicate::equal(4294967295u));
  EXPECT_EQ(parse_predicate("lt:-0x10", DataType::i32), Predicate::less(-16));
  EXPECT_EQ(parse_predicate("ge:-0x80000000", DataType::i32), Predicate::greater_equal(-2147483647 - 1));
  EXPECT_EQ(parse_predicate("range:0x0:0x7fffffff", DataType::i32), Predicate::in_range(0, 2147483647));
  EXPECT_EQ(parse_predicate("le:-0", DataType::u32), Predicate::less_equal(0u));
  for (const char* text : {"gt:0x", "gt:0x-1", "gt:--1", "gt:-", "gt:0xg", "gt:0x 1", "gt:+0x1"})
    EXPECT_THROW(parse_predicate(text, DataType::i32), gpuscan::Error) << text;
  EXPECT_THROW(parse_predicate("gt:0x10", DataType::f32), gpuscan::Error);  // floats stay decimal
}

// A constant the type cannot hold is an error of its own, naming the type's range, not "malformed".
TEST(PredicateText, OutOfRangeConstantsNameTheRange) {
  const struct {
    const char* text;
    DataType type;
    const char* range;
  } cases[] = {
      {"gt:4294967296", DataType::u32, "0 to 4294967295"},
      {"ge:-1", DataType::u32, "0 to 4294967295"},
      {"eq:0x100000000", DataType::u32, "0 to 4294967295"},
      {"lt:99999999999999999999999", DataType::u32, "0 to 4294967295"},
      {"gt:2147483648", DataType::i32, "-2147483648 to 2147483647"},
      {"gt:-0x80000001", DataType::i32, "-2147483648 to 2147483647"},
      {"range:-5:0xffffffff", DataType::i32, "-2147483648 to 2147483647"},
      {"gt:1e39", DataType::f32, "3.4028235e+38"},
      {"lt:-1e39", DataType::f32, "3.4028235e+38"},
      {"gt:1e-50", DataType::f32, "1.4e-45"},  // would round to 0: gt:0 is another test
      {"range:1e40:2", DataType::f32, "3.4028235e+38"},
      {"gt:18446744073709551616", DataType::u64, "0 to 18446744073709551615"},
      {"ge:-1", DataType::u64, "0 to 18446744073709551615"},
      {"gt:9223372036854775808", DataType::i64, "-9223372036854775808 to 9223372036854775807"},
      {"lt:-0x8000000000000001", DataType::i64, "-9223372036854775808 to 9223372036854775807"},
      {"gt:1e309", DataType::f64, "1.7976931348623157e+308"},
      {"gt:1e-400", DataType::f64, "4.9e-324"},
  };
  for (const auto& c : cases) {
    try {
      parse_predicate(c.text, c.type);
      ADD_FAILURE() << "no error for '" << c.text << "'";
    } catch (const gpuscan::Error& e) {
      EXPECT_EQ(e.code(), gpuscan::Errc::invalid_argument) << c.text;
      const std::string what = e.what();
      EXPECT_NE(what.find("out of range for type " + std::string(gpuscan::to_string(c.type))), std::string::npos)
          << what;
      EXPECT_NE(what.find(c.range), std::string::npos) << what;
      EXPECT_EQ(what.find("malformed"), std::string::npos) << what;
      EXPECT_NE(what.find(gpuscan::predicate_forms), std::string::npos) << what;
    }
  }
  // The extremes themselves are in range.
  EXPECT_EQ(parse_predicate("le:3.4028235e38", DataType::f32), Predicate::less_equal(3.4028235e38f));
  EXPECT_EQ(parse_predicate("gt:1.4e-45", DataType::f32), Predicate::greater(1.4e-45f));
  EXPECT_EQ(parse_predicate("gt:-inf", DataType::f32), Predicate::greater(-std::numeric_limits<float>::infinity()));
}

}  // namespace
