#include "json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gpuscan::cli {

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + '"';
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  out_ << (level.empty ? "\n" : ",\n") << std::string(2 * levels_.size(), ' ');
  level.empty = false;
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ << bracket;
  levels_.push_back({bracket == '{', true});
}

void JsonWriter::close(char bracket) {
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) out_ << '\n' << std::string(2 * levels_.size(), ' ');
  out_ << bracket;
  if (levels_.empty()) out_ << '\n';
}

JsonWriter& JsonWriter::begin_object() {
  open('{');
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  open('[');
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  out_ << json_quote(name) << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ << json_quote(s);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ << (b ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::value(int64_t i) {
  before_value();
  out_ << i;
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t u) {
  before_value();
  out_ << u;
  return *this;
}
JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  before_value();
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, d);  // shortest round-trip form
  out_ << std::string_view(buffer, result.ptr - buffer);
  return *this;
}
JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

}  // namespace gpuscan::cli
