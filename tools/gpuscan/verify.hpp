// Checking a GPU scan against the CPU reference (include/gpuscan/reference.hpp), for `scan --verify` and
// `demo`. Integers must match exactly (add and mul wrap, as on the GPU), and so must float min and max.
//
// Floats. Float sums and products are compared with a reference computed in a wider type (double for
// f32, long double for f64): the GPU combines in another order than a sequential loop, so bit-exact
// equality is not expected, but always in input order (gpuscan's operators need only be associative),
// so every intermediate result is the combination of a run of consecutive elements. A result is
// accepted if it is what some order could give:
//   - NaN in the reference (a NaN among the inputs, or +inf and -inf both) is NaN in every order: only
//     NaN matches it.
//   - Sums: within depth * eps * (the sum of |x| combined), depth = 8 + 2 log2(n) (cpu::float_tolerance:
//     a tree of that depth). A partial sum in any order is at most P (1 + depth eps) for P the sum of the
//     positive elements combined, and at least -N (1 + depth eps) for N that of the negative ones' |x|.
//     Where P (1 + depth eps) passes the type's largest finite value, some order overflows to +inf and
//     the result may be +inf; likewise -inf for N; where both may, inf - inf makes NaN possible too. So
//     where the exact sum lies past the finite range, +-inf is accepted, and a finite value within the
//     bound (an order that did not overflow rounds within it); an overflow in another order than the
//     reference's is accepted whenever it is possible at all.
//   - Products of k factors round k - 1 times in any order: each normal rounding is off by at most
//     u = eps / 2 relatively, so the GPU's result is within (1 + u)^(k-1) - 1 ~ (k - 1) u of the exact
//     product, and the wide reference within the same with the wide type's u; the tolerance is their
//     sum (relative to the reference, divided by 1 - the reference's). A rounding into the subnormal range
//     is off by half the least subnormal absolutely: relative to the least product of a run of
//     consecutive factors R_min, at most denorm_min / (2 R_min), added to u where a run may go subnormal
//     (so a run that may underflow to zero accepts nearly anything finite there: correctly, the order
//     decides). Where a run's product may pass the largest finite value, +-inf (the sign of a product is
//     the same in every order) is accepted; NaN where 0 * inf may happen in some order (a zero factor
//     with a possible overflow, an infinite factor with a run that may underflow to 0). Products past
//     even the wide type's range are not checked.
// The wide type's sums and logs are exact enough that these bounds stay conservative (x86-64's long
// double has 64 significand bits; where long double is double, f64 bounds only grow).
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
// comparisons as verify_scan (float sums and products within the bound of the last inclusive prefix).
std::optional<Mismatch> verify_reduce(std::span<const std::byte> input, std::span<const std::byte> result,
                                      DataType type, Op op);

// Ends a command's summary line on `err`: with `verify`, runs `check` and adds its outcome (a mismatch
// also on a line of its own). Returns the exit code: 1 for a mismatch, else 0.
int end_summary(std::ostream& err, bool verify, const std::function<std::optional<Mismatch>()>& check);

// "MISMATCH at index 17: got 5, expected 6 (3 of 1000 elements differ)"
std::string to_string(const Mismatch& mismatch);

}  // namespace gpuscan::cli
