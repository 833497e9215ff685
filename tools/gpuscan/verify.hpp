// Checking a GPU scan against the CPU reference (src/cpu/reference.hpp), for `scan --verify` and
// `demo`. Integers must match exactly (add and mul wrap, as on the GPU), and so must float min and max.
// Float sums are compared with a reference computed in a wider type (double for f32, long double for
// f64), within cpu::float_tolerance: the GPU adds in a different order than a sequential loop, so
// bit-exact equality is not expected. Float products are compared within a relative 2·log2(n)+8 ulps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan::cli {

struct Mismatch {
  uint64_t index = 0;       // the first element that differs
  uint64_t count = 0;       // how many elements differ in all
  uint64_t elements = 0;    // elements compared
  std::string got;          // the GPU's value at `index`, as text
  std::string expected;     // the reference value there (for f32: "x +- tolerance")
};

// nullopt when `output` is a correct `kind` scan of `input` under `op` (both arrays of `type`). An output
// of the wrong length counts as a mismatch at the first missing or surplus element.
// With `starts` (one entry per element, non-zero where a segment starts; segment_starts makes them), the
// reference is the segmented scan, and float sums' tolerance restarts with every segment.
std::optional<Mismatch> verify_scan(std::span<const std::byte> input, std::span<const std::byte> output,
                                    DataType type, ScanKind kind, Op op = Op::add,
                                    std::span<const uint8_t> starts = {});

// Segment starts of `n` elements from a heads file's bytes: u32 flags (key_bytes == 0; non-zero starts a
// segment) or keys of `key_bytes` = 4 or 8 bytes (a change of key starts one). Element 0 always starts one.
// `heads` must hold at least n flags or keys.
std::vector<uint8_t> segment_starts(std::span<const std::byte> heads, uint32_t key_bytes, uint64_t n);

// nullopt when `result` (one element of `type`) is the reduction of `input` under `op`, with the same
// comparisons as verify_scan (float sums within the tolerance of the last inclusive partial sum).
std::optional<Mismatch> verify_reduce(std::span<const std::byte> input, std::span<const std::byte> result,
                                      DataType type, Op op);

// Ends a command's summary line on `err`: with `verify`, runs `check` and adds its outcome (a mismatch
// also on a line of its own). Returns the exit code: 1 for a mismatch, else 0.
int end_summary(std::ostream& err, bool verify, const std::function<std::optional<Mismatch>()>& check);

// "MISMATCH at index 17: got 5, expected 6 (3 of 1000 elements differ)"
std::string to_string(const Mismatch& mismatch);

}  // namespace gpuscan::cli
