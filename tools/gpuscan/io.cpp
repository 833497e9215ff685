#include "io.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>

#include "gpuscan/error.hpp"
#include "output.hpp"

namespace gpuscan::cli {
namespace {

// Where a text parse is: the whole input (to tell binary data from text), its name and the line.
struct TextPosition {
  std::string_view text;
  std::string_view source;
  size_t line;
};

// Bytes that no text file of numbers holds: NUL and the other control bytes but tab, newline, vertical
// tab, form feed and carriage return. Random binary data has them within its first few bytes.
bool looks_binary(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte == 0x7f || (byte < 0x20 && !(byte >= '\t' && byte <= '\r'));
  });
}

[[noreturn]] void parse_failure(const TextPosition& at, const std::string& what) {
  throw Error(Errc::parse_error, std::string(at.source) + ":" + std::to_string(at.line) + ": " + what +
                                     (looks_binary(at.text) ? " (is it binary? use --format binary)" : ""));
}

[[noreturn]] void io_failure(const std::string& what, int err) {
  throw Error(Errc::io_error, what + ": " + std::generic_category().message(err));
}

// The token as it appears in messages: quoted, cut short after 40 bytes, printable ASCII as is and
// every other byte as \xNN (a backslash as \\), so that binary data puts no control byte or NUL on the
// terminal, nor a NUL into the message, whose C string would end there.
std::string quoted(std::string_view token) {
  constexpr size_t max_shown = 40;
  std::string out = "'";
  for (const char c : token.substr(0, max_shown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += {'\\', 'x', hex[byte >> 4], hex[byte & 0xf]};
    }
  }
  return out + (token.size() > max_shown ? "...'" : "'");
}

std::string_view trim(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

template <class T>
void append(std::vector<std::byte>& out, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

// Integers: signed types and u32 go through int64, u64 through uint64 (a leading '-' then is out of
// range), so that "-1" for an unsigned type reads as "out of range", not "not a number".
template <class T>
T parse_integer(std::string_view token, DataType type, const TextPosition& at) {
  using Wide = std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>;
  const bool negative_unsigned = std::is_unsigned_v<Wide> && !token.empty() && token.front() == '-';
  const std::string_view digits = negative_unsigned ? token.substr(1) : token;
  Wide wide = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), wide);
  const std::string name(to_string(type));
  if (ec == std::errc::invalid_argument || end != digits.data() + digits.size() || (negative_unsigned && digits.empty()))
    parse_failure(at, quoted(token) + " is not a valid " + name + " number");
  if (ec == std::errc::result_out_of_range || (negative_unsigned && wide != 0) ||
      std::cmp_less(wide, std::numeric_limits<T>::min()) || std::cmp_greater(wide, std::numeric_limits<T>::max()))
    parse_failure(at, quoted(token) + " is out of range for " + name + " (" +
                          std::to_string(std::numeric_limits<T>::min()) + " to " +
                          std::to_string(std::numeric_limits<T>::max()) + ")");
  return static_cast<T>(wide);
}

template <class T>
T parse_float(std::string_view token, DataType type, const TextPosition& at) {
  T value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  const std::string name(to_string(type));
  if (ec == std::errc::invalid_argument || end != token.data() + token.size())
    parse_failure(at, quoted(token) + " is not a valid " + name + " number");
  if (ec == std::errc::result_out_of_range)
    parse_failure(at, quoted(token) + " is out of range for " + name + " (it overflows or underflows)");
  return value;
}

void append_number(std::vector<std::byte>& out, std::string_view token, DataType type, const TextPosition& at) {
  visit_type(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) append(out, parse_float<T>(token, type, at));
    else append(out, parse_integer<T>(token, type, at));
  });
}

// Appends one element in text form (no newline) to `out`: floats in their shortest round-trip form.
void append_element(std::string& out, const std::byte* p, DataType type) {
  char buffer[64];
  std::to_chars_result r{};
  visit_type(type, [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p, sizeof v);
    r = std::to_chars(buffer, buffer + sizeof buffer, v);
  });
  out.append(buffer, r.ptr);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string read_all(const std::string& path) {
  FilePtr owned;
  std::FILE* f = stdin;
  const std::string name = path == "-" ? "standard input" : "'" + path + "'";
  if (path != "-") {
    owned.reset(std::fopen(path.c_str(), "rb"));
    if (!owned) io_failure("cannot open " + name + " for reading", errno);
    f = owned.get();
  }
  std::string data;
  char buffer[1 << 16];
  size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) data.append(buffer, got);
  if (std::ferror(f)) io_failure("cannot read " + name, errno ? errno : EIO);
  return data;
}

}  // namespace

std::string_view to_string(FileFormat format) noexcept {
  return format == FileFormat::text ? "text" : "binary";
}

std::optional<FileFormat> parse_file_format(std::string_view name) noexcept {
  for (auto f : {FileFormat::binary, FileFormat::text})
    if (name == to_string(f)) return f;
  return std::nullopt;
}

std::string data_type_names() {
  std::string names;
  for (DataType t : all_data_types) {
    if (!names.empty()) names += ", ";
    names += to_string(t);
  }
  return names;
}

void check_binary_size(uint64_t size, DataType type, std::string_view source) {
  if (size % element_size(type) != 0)
    throw Error(Errc::parse_error, std::string(source) + ": size " + std::to_string(size) +
                                       " bytes is not a multiple of " + std::to_string(element_size(type)) +
                                       " (the size of one " + std::string(to_string(type)) +
                                       "), so it is not a binary " + std::string(to_string(type)) + " file");
}

std::vector<std::byte> parse_text(std::string_view text, DataType type, std::string_view source) {
  std::vector<std::byte> out;
  out.reserve(text.size() / 4);  // a guess: short numbers
  size_t line = 0;
  size_t first_blank_line = 0;  // 0: no blank line since the last number
  size_t pos = 0;
  while (pos < text.size()) {
    size_t newline = text.find('\n', pos);
    if (newline == std::string_view::npos) newline = text.size();
    const std::string_view token = trim(text.substr(pos, newline - pos));
    pos = newline + 1;
    ++line;
    if (token.empty()) {
      if (first_blank_line == 0) first_blank_line = line;
      continue;
    }
    if (first_blank_line != 0)
      parse_failure({text, source, first_blank_line},
                    "empty line between numbers (the next number is on line " + std::to_string(line) +
                        "; only trailing blank lines are allowed)");
    append_number(out, token, type, {text, source, line});
  }
  return out;
}

std::string format_text(std::span<const std::byte> values, DataType type) {
  const size_t size = element_size(type);
  std::string out;
  out.reserve(values.size() / size * 12);
  for (size_t i = 0; i + size <= values.size(); i += size) {
    append_element(out, values.data() + i, type);
    out += '\n';
  }
  return out;
}

std::string format_element(std::span<const std::byte> values, DataType type, size_t index) {
  std::string out;
  append_element(out, values.data() + index * element_size(type), type);
  return out;
}

std::vector<std::byte> read_values(const std::string& path, DataType type, FileFormat format) {
  const std::string data = read_all(path);
  const std::string source = path == "-" ? "<stdin>" : path;
  if (format == FileFormat::text) return parse_text(data, type, source);
  check_binary_size(data.size(), type, source);
  const auto* p = reinterpret_cast<const std::byte*>(data.data());
  return {p, p + data.size()};
}

void write_values(const std::string& path, std::span<const std::byte> values, DataType type,
                  FileFormat format) {
  StagedOutput& output = process_outputs().open(path);
  if (format == FileFormat::text) output.write(format_text(values, type));
  else output.write(values);
}

// --- Streaming binary files ---

namespace {
std::string describe_path(const std::string& path, bool input) {
  return path == "-" ? (input ? "standard input" : "standard output") : "'" + path + "'";
}
}  // namespace

BinaryReader::BinaryReader(const std::string& path, DataType type) : path_(path), type_(type) {
  if (path == "-") {
    file_ = stdin;
  } else {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) io_failure("cannot open " + describe_path(path, true) + " for reading", errno);
    owned_ = true;
  }
  std::error_code ec;
  const std::filesystem::path p = path == "-" ? std::filesystem::path("/dev/stdin") : std::filesystem::path(path);
  if (std::filesystem::is_regular_file(p, ec)) {
    const uint64_t size = std::filesystem::file_size(p, ec);
    if (!ec) {
      size_ = size;
      try {
        check_binary_size(size, type, path == "-" ? "<stdin>" : path);
      } catch (...) {
        if (owned_) std::fclose(file_);
        throw;
      }
    }
  }
}

BinaryReader::~BinaryReader() {
  if (owned_) std::fclose(file_);
}

size_t BinaryReader::read(std::span<std::byte> buffer) {
  if (buffer.empty()) return 0;  // an empty span may hold a null pointer, which fread must not get
  const size_t got = std::fread(buffer.data(), 1, buffer.size(), file_);
  if (got == 0 && std::ferror(file_)) io_failure("cannot read " + describe_path(path_, true), errno ? errno : EIO);
  total_ += got;
  if (got == 0) check_binary_size(total_, type_, path_ == "-" ? "<stdin>" : path_);
  return got;
}

void BinaryWriter::write(std::span<const std::byte> bytes) {
  if (!output_) output_ = &process_outputs().open(path_);
  output_->write(bytes);
}

void BinaryWriter::finish() {
  if (!output_) output_ = &process_outputs().open(path_);
}

InputSource::InputSource(const std::string& path, DataType type, FileFormat format, bool whole) {
  if (whole || format == FileFormat::text) values_ = read_values(path, type, format);
  else file_.emplace(path, type);
}

size_t InputSource::read(std::span<std::byte> buffer) {
  if (file_) return file_->read(buffer);
  const size_t n = std::min(buffer.size(), values_.size() - at_);
  if (n) std::memcpy(buffer.data(), values_.data() + at_, n);
  at_ += n;
  return n;
}

std::optional<uint64_t> InputSource::size() const {
  return file_ ? file_->size() : std::optional<uint64_t>(values_.size());
}

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  uint64_t value = 0;
  if (digits == 0 || std::from_chars(text.data(), text.data() + digits, value).ec != std::errc()) return std::nullopt;
  std::string suffix;
  for (char c : text.substr(digits)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (!suffix.empty()) {
    const std::string_view units = "KMGT";
    const size_t unit = units.find(suffix[0]);
    const std::string_view rest = std::string_view(suffix).substr(1);
    if (unit != std::string_view::npos && (rest.empty() || rest == "B" || rest == "IB"))
      shift = 10 * static_cast<int>(unit + 1);
    else if (suffix != "B")
      return std::nullopt;
  }
  if (shift && value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace gpuscan::cli
