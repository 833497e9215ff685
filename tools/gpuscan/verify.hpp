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
std::optional<Mismatch> verify_scan(std::span<const std::byte> input, std::span<const std::byte> output,
                                    DataType type, ScanKind kind, Op op = Op::add);

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
