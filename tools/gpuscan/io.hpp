// The CLI's data files. Two formats, both holding a flat array of one DataType:
//
//   binary  raw little-endian elements, 4 bytes each, nothing else; the size must be a multiple of 4.
//   text    one decimal number per line. Spaces, tabs and a '\r' around a number are ignored; blank
//           lines may end the file but not come between numbers. Integers must fit the type (u32:
//           0..4294967295, i32: -2147483648..2147483647); floats are what std::from_chars accepts
//           (1.5, -2e-3, inf, nan) and must not overflow or underflow f32. Floats are written in the
//           shortest form that reads back to the same value.
//
// Values travel as bytes (std::vector<std::byte>) because that is what gpuscan::scan_bytes takes.
// Every failure throws gpuscan::Error: Errc::io_error for files that cannot be read or written,
// Errc::parse_error for malformed data, with a message naming the file (and, for text, "file:LINE:").
// A bad token is quoted with its bytes outside printable ASCII escaped (\x01), and a text input holding
// bytes no text has (NUL, other control bytes) is said to look binary.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuscan/types.hpp"
#include "output.hpp"

namespace gpuscan::cli {

static_assert(std::endian::native == std::endian::little,
              "binary files are little-endian; a big-endian host would need byte swapping in io.cpp");

enum class FileFormat { binary, text };

std::string_view to_string(FileFormat format) noexcept;  // "binary", "text"
std::optional<FileFormat> parse_file_format(std::string_view name) noexcept;

// Every DataType, for listing valid names in messages.
inline constexpr DataType all_data_types[] = {DataType::u32, DataType::i32, DataType::f32,
                                              DataType::u64, DataType::i64, DataType::f64};
std::string data_type_names();  // "u32, i32, f32, u64, i64, f64"

// --- In memory. `source` names the data in messages (usually the file name). ---

// Checks that `size` bytes hold whole elements of `type`; throws Errc::parse_error otherwise.
void check_binary_size(uint64_t size, DataType type, std::string_view source);
// Parses the text format into elements of `type`.
std::vector<std::byte> parse_text(std::string_view text, DataType type, std::string_view source);
// Formats elements of `type` in the text format: one number per line, each line ending in '\n'.
std::string format_text(std::span<const std::byte> values, DataType type);
// One element, as format_text writes it ("42", "-7", "0.1").
std::string format_element(std::span<const std::byte> values, DataType type, size_t index);

// --- Files. The path "-" means standard input / standard output. ---

std::vector<std::byte> read_values(const std::string& path, DataType type, FileFormat format);
// Stages the values in process_outputs() (output.hpp): they land in `path` whole when main() commits.
void write_values(const std::string& path, std::span<const std::byte> values, DataType type,
                  FileFormat format);

// --- Streaming binary files, chunk by chunk (gpuscan::scan_stream's reader and writer). ---

// Reads a binary file of `type` ("-": standard input) in pieces. Opening fails as read_values does; a
// regular file's size is checked up front (check_binary_size), standard input's at its end.
class BinaryReader {
 public:
  BinaryReader(const std::string& path, DataType type);
  BinaryReader(const BinaryReader&) = delete;
  BinaryReader& operator=(const BinaryReader&) = delete;
  ~BinaryReader();
  // Up to buffer.size() bytes into buffer; 0 at the end of the file.
  size_t read(std::span<std::byte> buffer);
  // A regular file's size, known before reading; nullopt for a pipe or a terminal.
  std::optional<uint64_t> size() const { return size_; }

 private:
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::string path_;
  DataType type_;
  uint64_t total_ = 0;
  std::optional<uint64_t> size_;
};

// Writes a binary file ("-": standard output) in pieces, staged in process_outputs() like write_values:
// the output is opened by the first write (or by finish(), for no data at all) and lands whole when
// main() commits, so a command that fails part way leaves the old file as it was.
class BinaryWriter {
 public:
  explicit BinaryWriter(std::string path) : path_(std::move(path)) {}
  void write(std::span<const std::byte> bytes);
  // Opens the output if nothing was written (an empty file is a result too).
  void finish();

 private:
  std::string path_;
  StagedOutput* output_ = nullptr;
};

// A command's input: streamed from a binary file in pieces (BinaryReader), or, with `whole`, read at
// once (read_values: the text format, and whatever must be in memory, such as input for --verify).
class InputSource {
 public:
  InputSource(const std::string& path, DataType type, FileFormat format, bool whole);
  // Up to buffer.size() bytes of values into buffer; 0 at the end (a gpuscan::StreamReader).
  size_t read(std::span<std::byte> buffer);
  // Its length in bytes where known before reading (in memory, or a regular file).
  std::optional<uint64_t> size() const;
  // The whole input (only with `whole`).
  const std::vector<std::byte>& values() const { return values_; }

 private:
  std::vector<std::byte> values_;
  size_t at_ = 0;
  std::optional<BinaryReader> file_;
};

// A byte count as the CLI takes it: digits with an optional binary suffix K, M, G or T (case-insensitive,
// optionally followed by "iB" or "B"): "4096", "64K", "16M", "1G", "2GiB". nullopt if malformed or
// out of range.
std::optional<uint64_t> parse_byte_size(std::string_view text);

// --- Typed views of byte arrays. ---


// Calls f(T{}) with T the C++ type of `type` (uint32_t, int32_t, float, uint64_t, int64_t or double).
template <class F>
void visit_element_type(DataType type, F&& f) {
  switch (type) {
    case DataType::u32: f(uint32_t{}); break;
    case DataType::i32: f(int32_t{}); break;
    case DataType::f32: f(float{}); break;
    case DataType::u64: f(uint64_t{}); break;
    case DataType::i64: f(int64_t{}); break;
    case DataType::f64: f(double{}); break;
  }
}
template <class T>
std::vector<T> values_from_bytes(std::span<const std::byte> bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

template <class T>
std::vector<std::byte> bytes_from_values(std::span<const T> values) {
  auto bytes = std::as_bytes(values);
  return {bytes.begin(), bytes.end()};
}

}  // namespace gpuscan::cli
