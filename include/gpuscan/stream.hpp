// Data larger than one upload: scans and reductions of host data streamed through the GPU in chunks
// that fit a memory budget, with the running total carried from chunk to chunk. The data may come from
// a span or from a reader callback, so neither the GPU nor the host need hold all of it at once
// (`gpuscan scan --device-memory-budget` streams files this way). docs/scan.md, "Data larger than the
// GPU", is the guide.
//
// Each chunk is uploaded, scanned with a carry-in (ScanArgs::initial_bits) equal to the running total
// of everything before it, and downloaded; the running total after a chunk is kept on the host from the
// chunk's own results (inclusive: its last output; exclusive: its last output combined with its last
// input). With double_buffer, two chunks' buffers alternate: while the GPU scans one chunk, the host
// hands the previous chunk's results to the writer and reads the next chunk.
//
//   auto ctx = gpuscan::Context::create();
//   std::FILE* in = std::fopen("big.bin", "rb");      // u32 values, more than the GPU holds
//   std::FILE* out = std::fopen("scanned.bin", "wb");
//   gpuscan::StreamOptions options{.device_memory_budget = 64 << 20};   // 64 MiB at a time
//   gpuscan::StreamStats stats = gpuscan::scan_stream(
//       ctx, gpuscan::ScanConfig{},
//       [&](std::span<std::byte> buf) { return std::fread(buf.data(), 1, buf.size(), in); },
//       [&](std::span<const std::byte> res) { std::fwrite(res.data(), 1, res.size(), out); },
//       options);
//   // stats.count elements scanned in stats.chunks chunks of stats.chunk_elements
//
// Every type and operator a scan supports streams (the carry is the element's bits). Float sums and
// products then depend on the chunk size too: the carry enters each chunk's scan where the chunk
// starts, so a different budget combines the elements in a different order (a fixed budget on one
// device still gives bitwise the same result on every run, under ScanConfig::deterministic).
//
// This header holds the options, callbacks and statistics every backend shares and names no graphics
// API; the calls are in gpuscan/vulkan/stream.hpp (included by gpuscan/vulkan.hpp) and gpuscan/gl.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "gpuscan/types.hpp"

namespace gpuscan {

// The budget used when StreamOptions::device_memory_budget is 0.
inline constexpr uint64_t default_stream_budget = uint64_t{256} << 20;  // 256 MiB

struct StreamOptions {
  // Bytes the stream's buffers may take together: for every chunk in flight, the host-visible staging
  // buffer, the device input and output buffers and the scan's temp (a reduction: staging, input, one
  // result element, temp). 0 = default_stream_budget. A chunk is as many elements as fit; it is never
  // smaller than one tile of the scan (Errc::invalid_argument when the budget cannot hold that) and
  // never larger than the device's maxStorageBufferRange. Allocation granularity may add a little.
  uint64_t device_memory_budget = 0;
  // Two chunks in flight, each with half the budget, so that the host's reading and writing overlap
  // the GPU's work; false: one chunk at a time with the whole budget.
  bool double_buffer = true;
  // The stream's length in bytes if known (a file's size, a span's): buffers are then no larger than
  // the data. Only a hint: a longer stream is still scanned whole, in chunks of at most this size.
  // Unknown (nullopt): chunks are sized for the budget.
  std::optional<uint64_t> size_hint;
};

// Fills the start of `buffer` with the next bytes of the stream and returns how many; 0 = the end.
// Short reads are fine (it is called again); the stream must end on a whole element. Exceptions
// propagate out of the stream call, after the GPU work in flight has finished.
using StreamReader = std::function<size_t(std::span<std::byte> buffer)>;
// Receives the results in order, whole elements, in pieces of at most one chunk. The bytes are valid
// during the call only.
using StreamWriter = std::function<void(std::span<const std::byte> results)>;

// How a stream will be (or was) cut up.
struct StreamPlan {
  uint64_t chunk_elements = 0;  // elements per full chunk (the last may hold fewer)
  uint32_t chunks_in_flight = 0;  // 2 with double_buffer, else 1
  uint64_t memory_bytes = 0;    // what the buffers take, at most the budget
  Algorithm algorithm = Algorithm::automatic;  // what every chunk runs (scans; resolved for a full chunk)
};

struct StreamStats : StreamPlan {
  uint64_t count = 0;   // elements streamed
  uint64_t chunks = 0;  // chunks run
  double gpu_ns = 0;    // GPU time of the scan or reduction passes, summed over chunks (0 without timestamps)
};

}  // namespace gpuscan
