// Decompression of .xz data (LZMA2 in the xz container) and reading of tar archives: the SPIR-V modules are
// embedded as one .tar.xz per kernel and element type (cmake/EmbedXz.cmake), which LZMA shrinks far more than
// deflate because a group's variants share most of their code. A full build's 339 modules (9.42 MB) take
// 1.15 MB in 115 archives this way, against 3.07 MB deflated one by one (libgpuscan.a, Release: 4.19 MB
// against 6.06 MB). gpuscan links no compression library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpuscan::core {

// The CRC-32 of xz, gzip and PNG (polynomial 0xEDB88320, reflected); `crc` continues an earlier result.
uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc = 0);
// The CRC-64 of xz (ECMA-182, polynomial 0xC96C5795D7870F42, reflected).
uint64_t crc64(std::span<const uint8_t> bytes, uint64_t crc = 0);

// The data of one .xz stream: every block's LZMA2 data decoded and checked against the block's check (none,
// CRC-32 or CRC-64), and the index checked against the blocks. Throws Error(Errc::invalid_argument) naming
// what is wrong for malformed or truncated input, a check mismatch, filters other than LZMA2, or more than
// `max_bytes` of data. Never reads outside `stream`.
std::vector<uint8_t> unxz(std::span<const uint8_t> stream, size_t max_bytes);

// The regular files of a tar archive (ustar or GNU), in order, their data as spans into `archive`. Throws
// Error(Errc::invalid_argument) for a header whose checksum or size is wrong or data past the end.
struct TarMember {
  std::string name;
  std::span<const uint8_t> data;
};
std::vector<TarMember> tar_members(std::span<const uint8_t> archive);

}  // namespace gpuscan::core
