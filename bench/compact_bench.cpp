#include "compact_bench.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <limits>
#include <type_traits>

#include "segment_lengths.hpp"

namespace gpuscan::bench {
namespace {

bool flagged_op(const std::string& op) { return op == "select-flagged"; }

// "single-pass" runs with SelectArgs::temp_zeroed (the state zeroed once, then left zeroed by every
// run, as the scan's "single-pass"); "single-pass-fill" clears it with a fill inside every run.
CompactConfig config_for(DataType type, const std::string& algorithm, uint32_t w, uint32_t k, uint32_t m = 0,
                         uint32_t spin = 0) {
  CompactConfig c;
  c.spin_limit = spin;
  c.type = type;
  c.workgroup_size = w;
  c.vectors_per_lane = k;
  c.tiles_per_workgroup = m;
  c.algorithm = algorithm == "three-pass" ? CompactAlgorithm::three_pass : CompactAlgorithm::single_pass;
  return c;
}

// One input of n random elements with exactly kept = n·density/100 selected: for select-if the
// threshold is the value below the `kept` largest (so up to ties at the threshold, exactly those are
// greater), for select-flagged `kept` flags of 1 at random places. Integers are uniform over the type's
// bits, floats uniform in [0, 1).
template <class T>
struct CaseData {
  std::vector<T> values;
  std::vector<uint32_t> flags;
  T threshold = 0;
  std::vector<T> expected;  // std::copy_if of the selection
};

template <class T>
CaseData<T> make_case(uint64_t n, uint32_t density, bool flagged, std::mt19937_64& rng) {
  CaseData<T> c;
  c.values.resize(n);
  for (auto& v : c.values) {
    if constexpr (std::is_floating_point_v<T>) v = static_cast<T>(static_cast<double>(rng() >> 11) * 0x1.0p-53);
    else v = static_cast<T>(rng());
  }
  const uint64_t kept = n * density / 100;
  if (flagged) {
    c.flags.assign(n, 0);
    std::fill(c.flags.begin(), c.flags.begin() + static_cast<ptrdiff_t>(kept), 1u);
    std::shuffle(c.flags.begin(), c.flags.end(), rng);
    for (uint64_t i = 0; i < n; ++i)
      if (c.flags[i]) c.expected.push_back(c.values[i]);
  } else {
    if (kept == n) {
      c.threshold = std::numeric_limits<T>::lowest();  // all but the lowest value, which random data almost never holds
    } else {
      std::vector<T> sorted = c.values;
      const auto nth = sorted.begin() + static_cast<ptrdiff_t>(n - kept - 1);
      std::nth_element(sorted.begin(), nth, sorted.end());
      c.threshold = *nth;
    }
    std::copy_if(c.values.begin(), c.values.end(), std::back_inserter(c.expected),
                 [&](T v) { return v > c.threshold; });
  }
  return c;
}

}  // namespace

void check_compact_options(const CompactOptions& o) {
  for (const auto& op : o.ops)
    if (op != "select-if" && op != "select-flagged" && op != "unique" && op != "rle")
      throw Error(Errc::invalid_argument,
                  "unknown compaction op '" + op + "' (select-if, select-flagged, unique, rle)");
  for (const auto& a : o.algorithms)
    if (a != "three-pass" && a != "single-pass" && a != "single-pass-fill")
      throw Error(Errc::invalid_argument,
                  "unknown compaction algorithm '" + a + "' (three-pass, single-pass, single-pass-fill)");
  for (const auto d : o.densities)
    if (d > 100) throw Error(Errc::invalid_argument, "density " + std::to_string(d) + "% is above 100%");
}

uint64_t compact_temp_bytes(const Context& ctx, uint64_t max_n, const CompactOptions& o) {
  uint64_t bytes = 16;
  for (const auto& a : o.algorithms)
    for (auto w : o.workgroup_sizes)
      for (auto k : o.vectors)
        for (const auto& t : o.types)
          bytes = std::max(bytes, compact_temp_requirements(ctx, max_n, config_for(t, a, w, k)).size);
  if (std::find(o.ops.begin(), o.ops.end(), "rle") != o.ops.end())
    for (const auto& a : o.algorithms)
      for (auto w : o.workgroup_sizes)
        for (auto k : o.vectors)
          bytes = std::max(bytes, run_length_temp_requirements(ctx, max_n, config_for(DataType::u32, a, w, k)).size);
  return bytes;
}

namespace {

template <class T>
int run_cases_of_type(const Context& ctx, const Buffers& b, uint64_t n, DataType type, const CompactOptions& o,
                      Sink& sink, std::mt19937_64& rng) {
  int failures = 0;
  const std::string type_name(to_string(type));
  for (const auto& op : o.ops) {
    if (op == "unique" || op == "rle") continue;  // run_runs_cases
    const bool flagged = flagged_op(op);
    for (const uint32_t density : o.densities) {
      const CaseData<T> data = make_case<T>(n, density, flagged, rng);
      upload(ctx, b, b.in.handle(), data.values.data(), n * sizeof(T));
      if (flagged) upload(ctx, b, b.flags.handle(), data.flags.data(), n * 4);
      const uint64_t kept = data.expected.size();
      const std::string kind = op + "-" + std::to_string(density) + "%";
      for (const auto& alg : o.algorithms)
        for (auto w : o.workgroup_sizes)
          for (auto k : o.vectors)
          for (auto m : o.tiles_per_workgroup)
          for (auto spin : o.spins) {
            // M and the spin limit are single-pass only
            if (alg == "three-pass" && (m != o.tiles_per_workgroup.front() || spin != o.spins.front())) continue;
            SelectArgs args;
            args.config = config_for(type, alg, w, k, m, spin);
            args.count = n;
            args.input = b.in.view();
            args.flags = b.flags.view();
            args.predicate = Predicate::greater(data.threshold);
            args.output = b.out.view();
            args.count_out = b.count.view();
            args.temp = b.temp.view();
            if (alg == "single-pass") {
              zero(ctx, b.temp.handle());  // a three-pass case before left its counts there
              args.temp_zeroed = true;
            }
            auto record = [&](VkCommandBuffer cmd) {
              if (flagged) record_select_flagged(ctx, cmd, args);
              else record_select_if(ctx, cmd, args);
            };
            std::string label = alg;
            if (o.workgroup_sizes.size() > 1 || o.vectors.size() > 1)
              label += "-w" + std::to_string(w) + "-k" + std::to_string(k);
            if (o.tiles_per_workgroup.size() > 1 && alg != "three-pass") label += "-m" + std::to_string(m);
            if (o.spins.size() > 1 && alg != "three-pass") label += "-s" + std::to_string(spin);
            const std::string what = label + " " + type_name + " " + kind + " n=" + std::to_string(n);
            if (o.verify) {
              poison(ctx, b.out.handle(), n * sizeof(T));
              poison(ctx, b.count.handle(), 4);
              testkit::submit_and_wait(ctx, record);
              uint32_t got_kept = 0;
              std::memcpy(&got_kept, read_back(ctx, b, b.count.handle(), 4), 4);
              const auto* got = static_cast<const T*>(read_back(ctx, b, b.out.handle(), n * sizeof(T)));
              const bool ok = got_kept == kept &&
                              (kept == 0 || std::memcmp(got, data.expected.data(), kept * sizeof(T)) == 0);
              if (!ok) {
                ++failures;
                std::cerr << "MISMATCH " << what << ": kept " << got_kept << " of " << kept << " expected\n";
                sink.note("MISMATCH " + what);
                continue;
              }
            }
            Row row{"gpuscan-vulkan", label, type_name, kind, n};
            row.stats = summarize(time_runs(ctx, o.warmup, o.runs, record));
            row.runs = o.runs;
            row.bytes = static_cast<double>(n) * (sizeof(T) + (flagged ? 4 : 0)) + static_cast<double>(kept) * sizeof(T);
            std::cerr << what << ": " << row.stats.median_ms << " ms\n";
            sink.row(row);
          }
    }
  }
  return failures;
}

// unique (select_if with Predicate::run_start; kind "unique-mean16") and run-length encoding
// (record_run_length_encode, the lengths in the flags buffer; kind "encode-mean16") on the u32 key runs of
// bench/segment_lengths.hpp, mean run 16: the data CUB's DeviceSelect::Unique and
// DeviceRunLengthEncode::Encode get in bench/cub/cub_family_bench.cu.
int run_runs_cases(const Context& ctx, const Buffers& b, uint64_t n, const CompactOptions& o, Sink& sink,
                   const std::vector<uint32_t>& keys, bool encode) {
  std::vector<uint32_t> expected, lengths;
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) expected.push_back(keys[i]), lengths.push_back(0);
    ++lengths.back();
  }
  const uint64_t kept = expected.size();
  const std::string kind = encode ? "encode-mean16" : "unique-mean16";
  int failures = 0;
  for (const auto& alg : o.algorithms)
    for (auto w : o.workgroup_sizes)
      for (auto k : o.vectors) {
        SelectArgs args;
        args.config = config_for(DataType::u32, alg, w, k);
        args.count = n;
        args.input = b.in.view();
        args.predicate = Predicate::run_start();
        args.output = b.out.view();
        args.count_out = b.count.view();
        args.temp = b.temp.view();
        if (alg == "single-pass") {
          zero(ctx, b.temp.handle());
          args.temp_zeroed = true;
        }
        RunLengthArgs rle;
        rle.config = args.config;
        rle.count = n;
        rle.input = b.in.view();
        rle.values = b.out.view();
        rle.lengths = b.flags.view();
        rle.count_out = b.count.view();
        rle.temp = b.temp.view();
        rle.temp_zeroed = args.temp_zeroed;
        auto record = [&](VkCommandBuffer cmd) {
          if (encode) record_run_length_encode(ctx, cmd, rle);
          else record_select_if(ctx, cmd, args);
        };
        std::string label = alg;
        if (o.workgroup_sizes.size() > 1 || o.vectors.size() > 1)
          label += "-w" + std::to_string(w) + "-k" + std::to_string(k);
        const std::string what = label + " u32 " + kind + " n=" + std::to_string(n);
        if (o.verify) {
          poison(ctx, b.out.handle(), n * 4);
          poison(ctx, b.flags.handle(), n * 4);
          poison(ctx, b.count.handle(), 4);
          testkit::submit_and_wait(ctx, record);
          uint32_t got_kept = 0;
          std::memcpy(&got_kept, read_back(ctx, b, b.count.handle(), 4), 4);
          const auto* got = static_cast<const uint32_t*>(read_back(ctx, b, b.out.handle(), n * 4));
          bool ok = got_kept == kept && std::memcmp(got, expected.data(), kept * 4) == 0;
          if (ok && encode) {
            const auto* got_lengths = static_cast<const uint32_t*>(read_back(ctx, b, b.flags.handle(), n * 4));
            ok = std::memcmp(got_lengths, lengths.data(), kept * 4) == 0;
          }
          if (!ok) {
            ++failures;
            std::cerr << "MISMATCH " << what << ": kept " << got_kept << " of " << kept << " expected\n";
            sink.note("MISMATCH " + what);
            continue;
          }
        }
        Row row{"gpuscan-vulkan", label, "u32", kind, n};
        row.stats = summarize(time_runs(ctx, o.warmup, o.runs, record));
        row.runs = o.runs;
        // As the CUB benchmark counts them: the keys read, the runs' values (and lengths) written.
        row.bytes = static_cast<double>(n) * 4 + static_cast<double>(kept) * (encode ? 8 : 4);
        std::cerr << what << ": " << row.stats.median_ms << " ms\n";
        sink.row(row);
      }
  return failures;
}

}  // namespace

int run_compaction_cases(const Context& ctx, const Buffers& b, uint64_t n, const CompactOptions& o, Sink& sink,
                         std::mt19937_64& rng) {
  int failures = 0;
  for (const DataType type : o.types)
    failures += visit_type(type, [&](auto tag) {
      return run_cases_of_type<decltype(tag)>(ctx, b, n, type, o, sink, rng);
    });
  const bool unique = std::find(o.ops.begin(), o.ops.end(), "unique") != o.ops.end();
  const bool encode = std::find(o.ops.begin(), o.ops.end(), "rle") != o.ops.end();
  if (unique || encode) {
    std::vector<uint32_t> keys;
    bench_inputs::fill_runs(keys, n, bench_inputs::default_seed, 16);
    upload(ctx, b, b.in.handle(), keys.data(), n * 4);
    if (unique) failures += run_runs_cases(ctx, b, n, o, sink, keys, false);
    if (encode) failures += run_runs_cases(ctx, b, n, o, sink, keys, true);
  }
  return failures;
}

}  // namespace gpuscan::bench
