// gpuscan::parse_predicate: the predicate syntax of `gpuscan compact --pred` and the Python module.
#include <gtest/gtest.h>

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
}

TEST(PredicateText, MalformedIsInvalidArgumentNamingTheForms) {
  for (const char* text : {"big:3", "gt:abc", "gt:", "lt", "range:1", "range:a:2", "bit:0xZZ", "nonzero:1",
                           "eq:1.5", "ge:-1", "gt:4294967296", "gt: 1", ""}) {
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
  EXPECT_THROW(parse_predicate("gt:2147483648", DataType::i32), gpuscan::Error);
  EXPECT_THROW(parse_predicate("gt:1e39", DataType::f32), gpuscan::Error);  // overflows f32
  try {
    parse_predicate("gt:1", DataType::u64);
    ADD_FAILURE() << "no error for a u64 predicate";
  } catch (const gpuscan::Error& e) {
    EXPECT_EQ(e.code(), gpuscan::Errc::unsupported) << e.what();
  }
}

}  // namespace
