// What the chunked streams of both backends (src/vulkan/stream.cpp, src/gl/stream.cpp) share, with no
// graphics API in sight: sizing chunks to a memory budget, filling a chunk from a StreamReader, and the
// running total carried from one chunk's scan into the next.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "gpuscan/stream.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

// The chunk size for a budget. Every chunk in flight needs `bytes_per_element` bytes per element
// (staging, input, output, ...) plus temp(chunk elements) bytes; `in_flight` chunks share `budget`.
// Returns the largest chunk that fits, at most `max_elements`, or throws Errc::invalid_argument when
// not even `min_elements` (one tile) fit, naming `what` ("a u32 scan"), the tile and the bytes it needs.
uint64_t chunk_elements_for_budget(uint64_t budget, uint32_t in_flight, uint64_t bytes_per_element,
                                   const std::function<uint64_t(uint64_t elements)>& temp_bytes,
                                   uint64_t min_elements, uint64_t max_elements, const std::string& what);

// The budget options ask for (the default for 0), and the chunks in flight.
uint64_t stream_budget(const StreamOptions& options);
uint32_t chunks_in_flight(const StreamOptions& options);

// Reads the next chunk into `dest` through `read`: calls it until `dest` is full or it returns 0.
class ChunkFiller {
 public:
  ChunkFiller(const StreamReader& read, DataType type) : read_(read), type_(type) {}
  // Bytes placed at the start of `dest`, a whole number of elements: fewer than dest.size() only at the
  // end of the stream. Errc::invalid_argument if the stream ends inside an element; Errc::io_error if
  // the reader claims more bytes than it was given room for.
  uint64_t fill(std::span<std::byte> dest);
  bool ended() const { return ended_; }

 private:
  const StreamReader& read_;
  DataType type_;
  uint64_t total_ = 0;
  bool ended_ = false;
};

// a ⊕ b on element bit patterns (element_bits), by the CPU reference's combine.
uint64_t combine_bits(DataType type, Op op, uint64_t a, uint64_t b);
// The bits of the element at `index` of `bytes` (zero-extended).
uint64_t element_bits_at(std::span<const std::byte> bytes, DataType type, uint64_t index);

// The running total of a chunked scan: the carry-in of the next chunk.
class RunningTotal {
 public:
  RunningTotal(const ScanConfig& config, std::optional<uint64_t> initial) : config_(config), bits_(initial) {}
  // The carry-in for the next chunk (nullopt before the first chunk without a caller's carry-in).
  std::optional<uint64_t> carry() const { return bits_; }
  // After a chunk: its last output and (exclusive scans) its last input, as bits.
  void advance(uint64_t last_output, uint64_t last_input);

 private:
  ScanConfig config_;
  std::optional<uint64_t> bits_;
};

}  // namespace gpuscan::core
