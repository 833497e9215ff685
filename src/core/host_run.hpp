// Running a plan on host data, written once for every primitive and backend. A primitive's HostLayout says
// which buffers a run needs (uploaded from the input, or downloaded into the output), how its record
// arguments are filled from them, and how the output is read back; a backend supplies only the engine that
// allocates, uploads, records and downloads (vk::run_on_host, gl::run_on_host).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/histogram_plan.hpp"
#include "core/run_length_plan.hpp"
#include "core/segment_offsets_plan.hpp"
#include "core/segmented_checks.hpp"
#include "core/sort_plan.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/plan.hpp"

namespace gpuscan::core {

// One buffer of a run: `bytes` long (0: the record does not use it; its view stays empty), filled from
// `upload` (zeros past it), read back when `download`.
struct HostBuffer {
  uint64_t bytes = 0;
  std::span<const std::byte> upload;
  bool download = false;
};

// The buffers of one run, and the count it records; no buffers: nothing to record (the output is read
// from no downloads).
struct HostRun {
  uint64_t count = 0;
  std::vector<HostBuffer> buffers;
};

using Downloads = std::vector<std::vector<std::byte>>;  // one per HostBuffer; empty unless downloaded

// The number of `esize`-byte elements in `bytes`; Errc::invalid_argument unless it is a whole number.
// `unit` names the elements in the message ("u32", "the custom operator's 12-byte").
inline uint64_t whole_elements(size_t bytes, uint32_t esize, const char* what, const std::string& unit) {
  if (bytes % esize != 0)
    throw Error(Errc::invalid_argument, std::string(what) + " holds " + std::to_string(bytes) +
                                            " bytes, not a whole number of " + unit + " elements");
  return bytes / esize;
}
inline uint64_t whole_elements(size_t bytes, DataType type, const char* what) {
  return whole_elements(bytes, element_size(type), what, std::string(to_string(type)));
}
// The elements of a scan: of config.type, or of its custom operator (`esize` bytes).
inline uint64_t scan_elements(size_t bytes, const ScanConfig& config, uint32_t esize) {
  if (config.custom_op)
    return whole_elements(bytes, esize, "the input", "the custom operator's " + std::to_string(esize) + "-byte");
  return whole_elements(bytes, config.type, "the input");
}

inline uint32_t heads_unit(SegmentHeads heads) { return heads == SegmentHeads::keys_u64 ? 8 : 4; }

inline uint32_t read_u32(const std::vector<std::byte>& bytes) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data(), 4);
  return v;
}

// The first `n` bytes of `bytes`.
inline std::vector<std::byte> head_of(std::vector<std::byte>&& bytes, uint64_t n) {
  bytes.resize(n);
  return std::move(bytes);
}

template <class P>
struct HostLayout;

template <>
struct HostLayout<primitive::Scan> {
  using P = primitive::Scan;
  static HostRun plan(const P& p, const P::Input& in, uint32_t esize) {
    const uint64_t n = scan_elements(in.values.size(), p.config, esize);
    if (n == 0) return {};
    return {n, {{in.values.size(), in.values}, {in.values.size(), {}, true}}};
  }
  template <class B, class View>
  static B bind(const P::Input& in, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.input = v[0];
    b.output = v[1];
    b.temp = temp;
    b.initial_bits = in.initial_bits;
    return b;
  }
  static P::Output output(const P&, const HostRun&, Downloads& d, uint32_t, Errc) {
    return d.empty() ? P::Output{} : std::move(d[1]);
  }
};

template <>
struct HostLayout<primitive::Reduce> {
  using P = primitive::Reduce;
  static HostRun plan(const P& p, const P::Input& in, uint32_t esize) {
    const uint64_t n = whole_elements(in.values.size(), p.config.type, "the input");
    return {n, {{in.values.size(), in.values}, {esize, {}, true}}};  // 0 elements: the identity
  }
  template <class B, class View>
  static B bind(const P::Input&, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.input = v[0];
    b.output = v[1];
    b.temp = temp;
    return b;
  }
  static P::Output output(const P&, const HostRun&, Downloads& d, uint32_t, Errc) { return std::move(d[1]); }
};

template <>
struct HostLayout<primitive::SegmentedScan> {
  using P = primitive::SegmentedScan;
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const uint32_t unit = heads_unit(p.heads);
    const uint64_t n = segmented_value_count(in.values.size(), p.config.type, in.heads.size(), unit,
                                             std::string(to_string(p.heads)));
    if (n == 0) return {};
    const uint64_t bytes = n * element_size(p.config.type);
    return {n, {{bytes, in.values}, {n * unit, in.heads.first(n * unit)}, {bytes, {}, true}}};
  }
  template <class B, class View>
  static B bind(const P::Input&, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.input = v[0];
    b.heads = v[1];
    b.output = v[2];
    b.temp = temp;
    return b;
  }
  static P::Output output(const P&, const HostRun&, Downloads& d, uint32_t, Errc) {
    return d.empty() ? P::Output{} : std::move(d[2]);
  }
};

// The by-offsets primitives: values and S + 1 offsets in, the output third.
struct ByOffsetsLayout {
  template <class B, class Input, class View>
  static B bind(const Input& in, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.segments = in.offsets.size() - 1;
    b.input = v[0];
    b.offsets = v[1];
    b.output = v[2];
    b.temp = temp;
    return b;
  }
  static std::vector<std::byte> output(const auto&, const HostRun&, Downloads& d, uint32_t, Errc) {
    return d.empty() ? std::vector<std::byte>{} : std::move(d[2]);
  }
};

template <>
struct HostLayout<primitive::SegmentedScanByOffsets> : ByOffsetsLayout {
  using P = primitive::SegmentedScanByOffsets;
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const uint64_t n = whole_elements(in.values.size(), p.config.type, "the values");
    check_host_offsets(in.offsets, n);
    check_segment_count(in.offsets.size() - 1);
    if (n == 0) return {};
    return {n, {{in.values.size(), in.values}, {in.offsets.size() * 4, std::as_bytes(in.offsets)},
                {in.values.size(), {}, true}}};
  }
};

template <>
struct HostLayout<primitive::SegmentedReduce> : ByOffsetsLayout {
  using P = primitive::SegmentedReduce;
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const OffsetsInput o = check_offsets_input(in.values.size(), in.offsets, p.config.type);
    if (o.segments == 0) return {o.count, {}};
    return {o.count, {{in.values.size(), in.values}, {in.offsets.size() * 4, std::as_bytes(in.offsets)},
                      {o.result_bytes, {}, true}}};
  }
};

template <>
struct HostLayout<primitive::Select> {
  using P = primitive::Select;
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const uint64_t n = whole_elements(in.values.size(), p.config.type, "the values");
    const uint64_t flag_bytes = p.flagged ? n * heads_unit(p.flags_kind) : 0;
    if (in.flags.size() < flag_bytes)
      throw Error(Errc::invalid_argument, "the flags hold " + std::to_string(in.flags.size()) + " bytes, fewer than " +
                                              std::to_string(n) + " values need (" + std::to_string(flag_bytes) + ")");
    if (n == 0) return {};
    return {n, {{in.values.size(), in.values}, {flag_bytes, in.flags.first(flag_bytes)},
                {in.values.size(), {}, true}, {4, {}, true}}};
  }
  template <class B, class View>
  static B bind(const P::Input& in, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.input = v[0];
    b.flags = v[1];
    b.predicate = in.predicate;
    b.output = v[2];
    b.count_out = v[3];
    b.temp = temp;
    return b;
  }
  static P::Output output(const P& p, const HostRun& run, Downloads& d, uint32_t esize, Errc gpu_error) {
    if (d.empty()) return {};
    const uint32_t kept = read_u32(d[3]);
    if (kept > run.count)
      throw Error(gpu_error, "the GPU reported " + std::to_string(kept) + " elements kept of " +
                                 std::to_string(run.count));
    return {head_of(std::move(d[2]), (p.partition ? run.count : kept) * esize), kept};
  }
};

template <>
struct HostLayout<primitive::RunLength> {
  using P = primitive::RunLength;
  // The most runs n elements hold, at least one (so that every buffer has a byte).
  static uint64_t room(const P& p, uint64_t n) { return std::max<uint64_t>(run_length_room(n, p.non_trivial), 1); }
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const uint64_t n = whole_elements(in.values.size(), p.config.type, "the values");
    if (n == 0) return {};
    const uint64_t r = room(p, n);
    return {n, {{in.values.size(), in.values},
                {p.non_trivial ? 4 : in.values.size(), {}, !p.non_trivial},
                {r * 4, {}, true},
                {p.non_trivial ? r * 4 : 0, {}, p.non_trivial},
                {4, {}, true}}};
  }
  template <class B, class View>
  static B bind(const P::Input&, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.input = v[0];
    b.values = v[1];
    b.lengths = v[2];
    b.offsets = v[3];
    b.count_out = v[4];
    b.temp = temp;
    return b;
  }
  static P::Output output(const P& p, const HostRun& run, Downloads& d, uint32_t esize, Errc gpu_error) {
    if (d.empty()) return {};
    const uint32_t runs = read_u32(d[4]);
    if (runs > room(p, run.count))
      throw Error(gpu_error, "the GPU reported " + std::to_string(runs) + " runs where at most " +
                                 std::to_string(room(p, run.count)) + " fit");
    P::Output out;
    out.lengths.resize(runs);
    if (runs) std::memcpy(out.lengths.data(), d[2].data(), size_t{runs} * 4);
    if (p.non_trivial) {
      out.offsets.resize(runs);
      if (runs) std::memcpy(out.offsets.data(), d[3].data(), size_t{runs} * 4);
    } else {
      out.values = head_of(std::move(d[1]), uint64_t{runs} * esize);
    }
    return out;
  }
};

template <>
struct HostLayout<primitive::Sort> {
  using P = primitive::Sort;
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const uint64_t n = check_sort_bytes(in.keys.size(), in.values.size(), p.config, in.indices);
    if (n == 0) return {};
    const uint64_t kbytes = n * element_size(p.config.key_type), vbytes = n * p.config.value_bytes;
    return {n, {{kbytes, in.keys}, {kbytes, {}, true}, {in.indices ? 0 : vbytes, in.values}, {vbytes, {}, true}}};
  }
  template <class B, class View>
  static B bind(const P::Input& in, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.keys_in = v[0];
    b.keys_out = v[1];
    b.values_in = v[2];
    b.values_out = v[3];
    b.temp = temp;
    b.values_are_indices = in.indices;
    return b;
  }
  static P::Output output(const P&, const HostRun&, Downloads& d, uint32_t, Errc) {
    if (d.empty()) return {};
    return {std::move(d[1]), std::move(d[3])};
  }
};

template <>
struct HostLayout<primitive::Histogram> {
  using P = primitive::Histogram;
  static HostRun plan(const P& p, const P::Input& in, uint32_t) {
    const uint64_t n = histogram_sample_count(in.samples.size(), p.config.type);
    const uint64_t counts = uint64_t{p.bins.num_bins()} * histogram_count_bytes(p.config.counts);
    return {n, {{in.samples.size(), in.samples}, {counts, {}, true}}};  // counts start at zero
  }
  template <class B, class View>
  static B bind(const P::Input&, uint64_t n, std::span<const View> v, const View& temp) {
    B b;
    b.count = n;
    b.input = v[0];
    b.counts = v[1];
    b.temp = temp;
    return b;
  }
  static P::Output output(const P& p, const HostRun&, Downloads& d, uint32_t, Errc) {
    return widen_counts(d[1], p.bins.num_bins(), histogram_count_bytes(p.config.counts));
  }
};

// Runs `description` on `input` through a backend's engine:
//   engine(const HostRun&, bind) -> Downloads, where bind(views, temp) gives the record's Buffers;
// `esize` is the size of the input's elements (a custom operator's included), `max_count` the plan's.
template <class P, class Buffers, class View, class Engine>
typename P::Output run_on_host(const P& description, const typename P::Input& input, uint32_t esize,
                               uint64_t max_count, Errc gpu_error, Engine&& engine) {
  using L = HostLayout<P>;
  const HostRun run = L::plan(description, input, esize);
  if (run.count > max_count)
    throw Error(Errc::invalid_argument, "the input holds " + std::to_string(run.count) +
                                            " elements, more than the plan's max_count " + std::to_string(max_count));
  Downloads downloads;
  if (!run.buffers.empty())
    downloads = engine(run, [&](std::span<const View> views, const View& temp) {
      return L::template bind<Buffers>(input, run.count, views, temp);
    });
  return L::output(description, run, downloads, esize, gpu_error);
}

}  // namespace gpuscan::core
