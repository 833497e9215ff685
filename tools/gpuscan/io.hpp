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
#pragma once

#include <bit>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuscan/types.hpp"

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
void write_values(const std::string& path, std::span<const std::byte> values, DataType type,
                  FileFormat format);

// --- Typed views of byte arrays. ---

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
