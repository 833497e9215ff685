// The JSON writer behind `gpuscan info --json` (tools/gpuscan/json.*): layout, commas and escaping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "json.hpp"

namespace gpuscan::cli {
namespace {

TEST(Json, QuotesAndEscapesStrings) {
  EXPECT_EQ(json_quote(""), "\"\"");
  EXPECT_EQ(json_quote("llvmpipe (LLVM 15.0.6, 256 bits)"), "\"llvmpipe (LLVM 15.0.6, 256 bits)\"");
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("line\nnext\ttab\r"), "\"line\\nnext\\ttab\\r\"");
  EXPECT_EQ(json_quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json_quote("\xc3\xa9"), "\"\xc3\xa9\"");  // UTF-8 passes through
}

TEST(Json, WritesNestedValuesWithCommasAndIndentation) {
  std::ostringstream out;
  JsonWriter json(out);
  json.begin_object();
  json.key("name").value("gpu");
  json.key("count").value(uint64_t{18446744073709551615u});
  json.key("delta").value(int64_t{-5});
  json.key("ok").value(true);
  json.key("period").value(1.5);
  json.key("nan").value(std::nan(""));
  json.key("none").null();
  json.key("sizes").begin_array().value(1).value(2u).end_array();
  json.key("empty").begin_array().end_array();
  json.key("inner").begin_object().key("x").value(false).end_object();
  json.end_object();
  EXPECT_EQ(out.str(),
            "{\n"
            "  \"name\": \"gpu\",\n"
            "  \"count\": 18446744073709551615,\n"
            "  \"delta\": -5,\n"
            "  \"ok\": true,\n"
            "  \"period\": 1.5,\n"
            "  \"nan\": null,\n"
            "  \"none\": null,\n"
            "  \"sizes\": [\n"
            "    1,\n"
            "    2\n"
            "  ],\n"
            "  \"empty\": [],\n"
            "  \"inner\": {\n"
            "    \"x\": false\n"
            "  }\n"
            "}\n");
}

TEST(Json, TopLevelArray) {
  std::ostringstream out;
  JsonWriter(out).begin_array().value("a").begin_object().end_object().end_array();
  EXPECT_EQ(out.str(), "[\n  \"a\",\n  {}\n]\n");
}

}  // namespace
}  // namespace gpuscan::cli
