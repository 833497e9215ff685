// What both backends check of a segmented scan's arguments, in the same order and with the same
// messages (src/vulkan/segmented.cpp, src/gl/segmented.cpp). The buffer checks take the backend's own
// check_view(what, view, count, unit, need) and overlaps(a, a_bytes, b, b_bytes).
#pragma once

#include <cstdint>
#include <string>

#include "gpuscan/error.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::core {

// Throws unless `config` can run as a segmented scan: an operator of its type, reduce-then-scan (or
// automatic; Errc::unsupported otherwise), no custom operator (Errc::unsupported).
void check_segmented_config(const ScanConfig& config);

// The number of values in `value_bytes` bytes of `type`, with at least as many heads in `head_bytes`
// bytes of `head_unit`-byte heads named `heads_name` ("flags", "u32 keys", ...); Errc::invalid_argument
// otherwise.
uint64_t segmented_value_count(uint64_t value_bytes, DataType type, uint64_t head_bytes, uint32_t head_unit,
                               const std::string& heads_name);

template <class View, class CheckView, class Overlaps>
void check_segmented_buffers(const View& input, const View& heads, const View& output, const View& temp, uint64_t n,
                             uint32_t esize, uint32_t head_unit, uint64_t temp_bytes, CheckView check_view,
                             Overlaps overlaps) {
  const uint64_t bytes = n * esize;
  const uint64_t head_total = n * head_unit;
  check_view("input", input, n, esize, "the segmented scan needs");
  check_view("heads", heads, n, head_unit, "the segmented scan needs one flag or key per element:");
  check_view("output", output, n, esize, "the segmented scan needs");
  const bool in_place = input.buffer == output.buffer && input.offset == output.offset;
  if (!in_place && overlaps(input, bytes, output, bytes))
    throw Error(Errc::invalid_argument, "input and output ranges overlap without being identical; "
                                        "scan in place (output == input) or use disjoint ranges");
  if (overlaps(heads, head_total, output, bytes))
    throw Error(Errc::invalid_argument, "heads and output ranges overlap: the scan reads heads after it "
                                        "has written output");
  if (temp_bytes > 0) {
    check_view("temp", temp, temp_bytes / esize, esize, "the segmented scan needs");
    if (overlaps(temp, temp_bytes, input, bytes) || overlaps(temp, temp_bytes, output, bytes) ||
        overlaps(temp, temp_bytes, heads, head_total))
      throw Error(Errc::invalid_argument, "temp storage overlaps the input, heads or output range");
  }
}

}  // namespace gpuscan::core
