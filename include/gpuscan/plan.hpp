// Plan objects: what every primitive shares, on every backend (names no graphics API). A plan is created
// once for a description (the primitive and its configuration) and limits (the largest count, whether the
// count comes from GPU memory); the backend builds its kernels then. It is then asked for its temporary
// storage and a listing of its passes, recorded into command streams as often as needed, or run on host
// data. gpuscan::Plan (gpuscan/vulkan/plan.hpp) and gpuscan::gl::Plan (gpuscan/gl/plan.hpp) have this
// shape for every primitive below; docs/plans.md is the guide.
//
//   gpuscan::Plan scan(ctx, gpuscan::primitive::Scan{.config = {.type = gpuscan::DataType::f32}},
//                      {.max_count = 1u << 20});
//   auto req = scan.temp_requirements();   // allocate req.size bytes with req.usage, once
//   scan.record(cmd, {.count = n, .input = in, .output = out, .temp = tmp});   // every frame, n <= 2^20
//
// Each primitive's description holds three more types: Buffers (what record takes: the count, the
// backend's buffer views, what may change from one record to the next), Input (host data for run) and
// Output (what run returns, as bytes, in the layout the GPU wrote).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpuscan/compact.hpp"
#include "gpuscan/histogram.hpp"
#include "gpuscan/reduce.hpp"
#include "gpuscan/segmented.hpp"
#include "gpuscan/sort.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan {

// What a plan is built for.
struct PlanLimits {
  // The most elements (keys, samples) one record may process: temp_requirements() is sized for it and
  // every kernel a count from 0 to it needs is built when the plan is created. Records of more are
  // Errc::invalid_argument.
  uint64_t max_count = 0;
  // Records take their count from GPU memory (Buffers::count_from; Buffers::count is then its bound).
  bool count_from_gpu = false;
  // Scans: the output is the input (a single-pass scan builds a kernel of its own for that).
  bool in_place = false;
  // The caller's ranges start at multiples of 4 elements (16 bytes; 32 for 8-byte types), as vector loads
  // need; false builds the kernels for other multiples of the element size as well.
  bool vector_aligned = true;
  // Build every kernel when the plan is created (so that no record builds one); false builds each at the
  // first record that needs it instead, which is what one-shot use on host data wants (the convenience
  // calls create their plans so).
  bool prepare = true;
};

// The primitives. Field `config` is the primitive's configuration (gpuscan/types.hpp and the primitive's
// own header); the other fields say which form of it the plan records.
namespace primitive {

// Prefix scan (gpuscan/vulkan/scan.hpp): output[i] = x0 ⊕ ... ⊕ x(i-1) (exclusive) or ... ⊕ xi (inclusive).
struct Scan {
  ScanConfig config;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;  // 0 records nothing; with count_from, the upper bound of the count in GPU memory
    View input;          // count elements
    View output;         // count elements; may be exactly the input (with PlanLimits::in_place)
    View temp;           // temp_requirements() bytes
    bool temp_zeroed = false;               // the temp range holds zeros (gpuscan::ScanArgs::temp_zeroed)
    std::optional<uint64_t> initial_bits;   // a carry-in's bit pattern (gpuscan::ScanArgs::initial_bits)
    std::optional<Count> count_from;        // with PlanLimits::count_from_gpu
  };
  struct Input {
    std::span<const std::byte> values;
    std::optional<uint64_t> initial_bits;
  };
  using Output = std::vector<std::byte>;  // as many elements as the input
};

// Reduction (gpuscan/vulkan/reduce.hpp): one element, x0 ⊕ x1 ⊕ ... (the identity for no elements).
struct Reduce {
  ReduceConfig config;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;  // 0 writes the identity
    View input;
    View output;         // one element
    View temp;
    std::optional<Count> count_from;
  };
  struct Input {
    std::span<const std::byte> values;
  };
  using Output = std::vector<std::byte>;  // one element
};

// Segmented scan (gpuscan/vulkan/segmented.hpp): a scan that restarts where `heads` says a segment starts.
struct SegmentedScan {
  ScanConfig config;
  SegmentHeads heads = SegmentHeads::flags;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;
    View input;
    View heads;   // count u32 flags, or count keys (u32 or u64)
    View output;  // may be exactly the input
    View temp;
    std::optional<Count> count_from;
  };
  struct Input {
    std::span<const std::byte> values;
    std::span<const std::byte> heads;  // count flags or keys, as `heads` says
  };
  using Output = std::vector<std::byte>;
};

// Segmented scan by offsets (gpuscan/vulkan/segmented.hpp): segment s is [offsets[s], offsets[s + 1]).
struct SegmentedScanByOffsets {
  ScanConfig config;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;
    uint64_t segments = 0;  // S
    View input;
    View offsets;  // S + 1 u32, non-decreasing
    View output;
    View temp;
  };
  struct Input {
    std::span<const std::byte> values;
    std::span<const uint32_t> offsets;  // S + 1, non-decreasing, offsets[S] <= elements (checked)
  };
  // As many elements as values: those before offsets[0] and from offsets[S] on are scanned as segments of
  // their own (gpuscan/vulkan/segmented.hpp).
  using Output = std::vector<std::byte>;
};

// Segmented reduction by offsets (gpuscan/vulkan/segmented_reduce.hpp): one result per segment.
struct SegmentedReduce {
  ReduceConfig config;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;     // values
    uint64_t segments = 0;  // S
    View input;
    View offsets;  // S + 1 u32
    View output;   // S elements
    View temp;
  };
  struct Input {
    std::span<const std::byte> values;
    std::span<const uint32_t> offsets;
  };
  using Output = std::vector<std::byte>;  // S elements
};

// Stream compaction (gpuscan/vulkan/compact.hpp): the elements a predicate or a flag keeps, in order;
// partition writes the rejected ones after them.
struct Select {
  CompactConfig config;
  bool flagged = false;                              // by flags; else by a predicate of this kind:
  PredicateKind predicate = PredicateKind::nonzero;  // its constants are given at each record
  bool partition = false;
  SegmentHeads flags_kind = SegmentHeads::flags;     // by flags: u32 flags, or keys (kept where a run starts)

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;
    View input;
    View flags;           // flagged: count flags (or keys)
    Predicate predicate;  // not flagged: of the plan's kind
    View output;          // room for count elements
    View count_out;       // one u32: how many were kept
    View temp;
    bool temp_zeroed = false;
    std::optional<Count> count_from;
  };
  struct Input {
    std::span<const std::byte> values;
    std::span<const std::byte> flags;  // flagged only
    Predicate predicate;               // not flagged only
  };
  struct Output {
    std::vector<std::byte> values;  // the kept elements (partition: every element, the kept ones first)
    uint64_t kept = 0;
  };
};

// Run-length encoding (gpuscan/vulkan/run_length.hpp): each run's first element and length, or (non_trivial)
// the offset and length of each run of two or more.
struct RunLength {
  CompactConfig config;
  bool non_trivial = false;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;
    View input;
    View values;    // encode: room for count elements
    View lengths;   // room for count u32 (non-trivial: count / 2)
    View offsets;   // non-trivial: room for count / 2 u32
    View count_out;  // one u32
    View temp;
    bool temp_zeroed = false;
  };
  struct Input {
    std::span<const std::byte> values;
  };
  struct Output {
    std::vector<std::byte> values;  // encode: the first element of each run
    std::vector<uint32_t> lengths;
    std::vector<uint32_t> offsets;  // non-trivial
  };
};

// LSD radix sort of keys, or of keys and values (config.value_bytes 4 or 8) (gpuscan/vulkan/sort.hpp).
struct Sort {
  SortConfig config;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;
    View keys_in;
    View keys_out;
    View values_in;   // pairs, unless values_are_indices
    View values_out;  // pairs
    View temp;
    bool values_are_indices = false;  // pairs with 4-byte values: each key's input position (argsort)
    std::optional<Count> count_from;
  };
  struct Input {
    std::span<const std::byte> keys;
    std::span<const std::byte> values;  // pairs, unless indices
    bool indices = false;
  };
  using Output = SortedBytes;
};

// Histogram (gpuscan/vulkan/histogram.hpp): samples counted into bins.
struct Histogram {
  HistogramConfig config;
  HistogramBins bins;

  template <class View, class Count>
  struct Buffers {
    uint64_t count = 0;  // samples
    View input;
    View counts;         // num_bins counts of config.counts
    View temp;
    std::optional<Count> count_from;
  };
  struct Input {
    std::span<const std::byte> samples;
  };
  using Output = std::vector<uint64_t>;  // num_bins counts (widened from u32 counts)
};

}  // namespace primitive

}  // namespace gpuscan
