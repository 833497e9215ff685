// Data larger than one upload, on Vulkan (gpuscan/stream.hpp says how streams run): scans and
// reductions of host data, from a reader callback or a span, in chunks that fit a memory budget.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "gpuscan/reduce.hpp"
#include "gpuscan/stream.hpp"
#include "gpuscan/types.hpp"
#include "gpuscan/vulkan/context.hpp"

namespace gpuscan {

// The plan for a scan stream under `config` and `options`; validates both (the same errors as
// scan_temp_requirements, plus Errc::invalid_argument when the budget cannot hold one tile per chunk
// in flight, saying how much it would take).
//   auto plan = gpuscan::plan_scan_stream(ctx, {}, {.device_memory_budget = 1 << 20});
//   // on lavapipe: plan.chunk_elements == 43682, as 2 chunks in flight x (3 x 43682 x 4 bytes of
//   // staging, input and output + 96 bytes of single-pass temp) fit in 1 MiB
StreamPlan plan_scan_stream(const Context& ctx, const ScanConfig& config, const StreamOptions& options = {});
StreamPlan plan_reduce_stream(const Context& ctx, const ReduceConfig& config, const StreamOptions& options = {});

// Scans everything `read` delivers, in chunks, and hands the results to `write` in order. With
// `initial_bits`, a carry-in in front of the whole stream (ScanArgs::initial_bits). Blocks until done.
StreamStats scan_stream(const Context& ctx, const ScanConfig& config, const StreamReader& read,
                        const StreamWriter& write, const StreamOptions& options = {},
                        std::optional<uint64_t> initial_bits = std::nullopt);

// Reduces everything `read` delivers: each chunk is reduced on the GPU and the chunk totals are combined
// on the host in chunk order (deterministic for floats given the chunk size; a different budget may
// round float sums differently). Returns the result element's bytes; `stats`, if given, what ran.
std::vector<std::byte> reduce_stream(const Context& ctx, const ReduceConfig& config, const StreamReader& read,
                                     const StreamOptions& options = {}, StreamStats* stats = nullptr);

// Host spans, chunked: as scan() and reduce(), but never more than the budget on the device at once.
//   std::vector<uint64_t> big(1'000'000'000, 1);   // 8 GB
//   auto out = gpuscan::scan_chunked(ctx, std::span<const uint64_t>(big), {}, {.device_memory_budget = 1 << 30});
//   // out[i] == i
template <Element T>
std::vector<T> scan_chunked(const Context& ctx, std::span<const T> input, ScanConfig config,
                            StreamOptions options = {}, std::optional<std::type_identity_t<T>> initial = std::nullopt) {
  config.type = data_type_of<T>::value;
  options.size_hint = input.size_bytes();
  std::vector<T> out(input.size());
  size_t read_at = 0, written_at = 0;
  const auto bytes = std::as_bytes(input);
  const auto out_bytes = std::as_writable_bytes(std::span<T>(out));
  scan_stream(
      ctx, config,
      [&](std::span<std::byte> buf) {
        const size_t n = std::min(buf.size(), bytes.size() - read_at);
        std::copy_n(bytes.begin() + read_at, n, buf.begin());
        read_at += n;
        return n;
      },
      [&](std::span<const std::byte> res) {
        std::copy(res.begin(), res.end(), out_bytes.begin() + written_at);
        written_at += res.size();
      },
      options, initial ? std::optional<uint64_t>(element_bits(*initial)) : std::nullopt);
  return out;
}

template <Element T>
T reduce_chunked(const Context& ctx, std::span<const T> input, Op op = Op::add, StreamOptions options = {}) {
  options.size_hint = input.size_bytes();
  size_t read_at = 0;
  const auto bytes = std::as_bytes(input);
  ReduceConfig config;
  config.type = data_type_of<T>::value;
  config.op = op;
  const std::vector<std::byte> result = reduce_stream(
      ctx, config,
      [&](std::span<std::byte> buf) {
        const size_t n = std::min(buf.size(), bytes.size() - read_at);
        std::copy_n(bytes.begin() + read_at, n, buf.begin());
        read_at += n;
        return n;
      },
      options);
  T value;
  std::memcpy(&value, result.data(), sizeof value);
  return value;
}

}  // namespace gpuscan
