// A small JSON writer for machine-readable output (`gpuscan info --json`): objects, arrays, strings,
// numbers, booleans and null, indented by two spaces. It places the commas and escapes the strings; the
// caller opens and closes in the right order (keys inside objects only).
//
//   JsonWriter json(std::cout);
//   json.begin_object();
//   json.key("name").value("llvmpipe");
//   json.key("sizes").begin_array().value(1).value(2).end_array();
//   json.end_object();   // {"name": "llvmpipe", "sizes": [1, 2]}, one member per line
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscan::cli {

// `s` as a JSON string literal, quotes included: ", \ and control characters escaped; other bytes
// (UTF-8 included) as they are.
std::string json_quote(std::string_view s);

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);  // the next value belongs to this member

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t i);
  JsonWriter& value(uint64_t u);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(unsigned u) { return value(static_cast<uint64_t>(u)); }
  JsonWriter& value(double d);  // not finite: null
  JsonWriter& null();

 private:
  void before_value();  // comma, newline and indentation as the context needs
  void open(char bracket);
  void close(char bracket);

  struct Level {
    bool object = false;
    bool empty = true;
  };
  std::ostream& out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace gpuscan::cli
