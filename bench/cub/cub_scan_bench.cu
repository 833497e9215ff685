// cub_scan_bench.cu - reference timings of NVIDIA CUB prefix scans and stream compaction.
//
// Times cub::DeviceScan::ExclusiveSum / InclusiveSum for u32, f32 and u64,
// a device-to-device cudaMemcpyAsync of n u32 (the CUDA copy roofline), and
// (with --selects) cub::DeviceSelect::If / Flagged on u32, u64 or f64 (--select-types), and writes CSV rows
// in the same format as the gpuscan Vulkan benchmark:
//
//   impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps
//
// gbps = 2 * n * sizeof(type) (one read + one write) / median time, in 1e9 B/s,
// for scans and the copy; for compaction (kind "select-if-50%" etc., as
// gpuscan_bench writes) the bytes moved at least: n*sizeof(T) read + kept*sizeof(T)
// written, + n*4 flags read for Flagged (u32 flags, as gpuscan's select_flagged takes).
//
// Compaction data, per (op, density d, n): n random elements (integers over all
// bits, f64 uniform in [0, 1)); select-if keeps
// v > threshold, the threshold being the value just below the n*d/100 largest
// (so exactly that many are kept, up to ties); select-flagged has exactly
// n*d/100 flags set to 1 at random places.  Each case is checked against a CPU
// std::copy_if (output and the device count) before it is timed; the timed
// region is one DeviceSelect call (its init kernel included), temp storage
// queried and allocated once outside it.
//
// Build (see build.sh):  nvcc -O3 -std=c++17 -arch=sm_90 -o cub_scan_bench cub_scan_bench.cu
// Run:                   ./cub_scan_bench --csv cub.csv      (--help for options)
//
// Method, per (type, kind, n):
//   * random input (splitmix64 of a seed printed in the CSV metadata; --seed to
//     reproduce), uploaded once per (type, n) and shared by both kinds;
//   * the temp-storage size query is done once, outside any timing, and the
//     temp storage is allocated once;
//   * verification: output poisoned with cudaMemset(0xFF), ONE untimed scan,
//     result copied back and checked against a CPU reference (exact for
//     integers, |got - ref| <= rtol * sum|x| + atol for f32 with the reference
//     accumulated in double).  Any wrong element prints MISMATCH and exits 1;
//   * output poisoned again, --warmup untimed calls, then --runs timed calls.
//     Each timed call is bracketed by its own pair of CUDA events; the timed
//     region is exactly one ExclusiveSum/InclusiveSum call (CUB's init kernel +
//     scan kernel) or one cudaMemcpyAsync;
//   * by default the timed calls are enqueued behind a small kernel that spins
//     on a host flag and are released together (the technique NVBench uses),
//     so the events measure GPU execution only and not host launch latency,
//     which would otherwise dominate at small n.  --sync-each instead
//     synchronizes after every call (simple, but includes launch gaps).
//   * median / min / max over the timed runs.
//
// Note: back-to-back runs reuse the same buffers, so for sizes whose input +
// output fit in L2 (50 MB on H100/H200) the numbers are L2-resident numbers.
// The Vulkan benchmark is assumed to time the same way; compare like with like.
//
// Exit status: 0 ok, 1 MISMATCH, 2 CUDA or usage error.

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "cub_bench_common.cuh"  // checks, parsing, random input, Timer, Output, metadata, copy roofline

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

struct Options {
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> types{"u32", "f32", "u64"};
  std::vector<std::string> kinds{"exclusive", "inclusive"};
  int runs = 30;
  int warmup = 5;
  std::string csv_path;  // empty: stdout
  bool copy = true;
  bool scans = true;
  int device = 0;
  bool seed_given = false;
  std::uint64_t seed = 0;
  double f32_rtol = 1e-3;
  double f32_atol = 1e-6;
  bool sync_each = false;
  std::vector<std::string> selects;                // subset of if,flagged (default none)
  std::vector<std::string> select_types{"u32"};    // subset of u32,u64,f64
  std::vector<std::uint64_t> densities{1, 50, 99};  // percent kept
  std::size_t mem_margin = std::size_t(256) << 20;  // keep this much free device memory
};

static void print_help() {
  std::printf(
      "cub_scan_bench: time cub::DeviceScan::{Exclusive,Inclusive}Sum, a D2D memcpy\n"
      "and (--selects) cub::DeviceSelect::{If,Flagged}\n"
      "\n"
      "options:\n"
      "  --sizes LIST     comma-separated element counts; each N or 2^K\n"
      "                   (default 2^10,2^12,...,2^30)\n"
      "  --types LIST     subset of u32,f32,u64 (default all)\n"
      "  --kinds LIST     subset of exclusive,inclusive (default both)\n"
      "  --runs N         timed runs per measurement (default 30)\n"
      "  --warmup N       untimed warm-up calls before timing (default 5)\n"
      "  --csv PATH       write CSV here (default stdout); summary goes to stderr\n"
      "  --no-copy        skip the cudaMemcpyAsync copy roofline\n"
      "  --copy-only      only the copy roofline, no scans\n"
      "  --seed S         input seed (default: fresh random seed, printed)\n"
      "  --f32-rtol X     f32 check: |got-ref| <= X*sum|x| + atol (default 1e-3)\n"
      "  --device I       CUDA device index (default 0)\n"
      "  --selects LIST   also time cub::DeviceSelect: subset of if,flagged\n"
      "  --select-types L element types of the selects: subset of u32,u64,f64 (default u32)\n"
      "  --densities LIST compaction: percent of elements kept (default 1,50,99)\n"
      "  --select-only    only the DeviceSelect cases (no scans, no copy)\n"
      "  --sync-each      synchronize after every timed call instead of batching\n"
      "                   the calls behind a blocking kernel\n"
      "  --mem-margin MB  device memory to leave free when deciding to skip (default 256)\n"
      "  --help\n");
}

static Options parse_args(int argc, char** argv) {
  Options o;
  for (int k = 10; k <= 30; k += 2) o.sizes.push_back(std::uint64_t(1) << k);
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) usage_error(std::string("missing value for ") + argv[i]);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      print_help();
      std::exit(0);
    } else if (a == "--sizes") {
      o.sizes.clear();
      for (auto& s : split(need(i), ',')) o.sizes.push_back(parse_size(s));
      if (o.sizes.empty()) usage_error("--sizes is empty");
    } else if (a == "--types") {
      o.types = split(need(i), ',');
      for (auto& t : o.types)
        if (t != "u32" && t != "f32" && t != "u64") usage_error("unknown type '" + t + "'");
      if (o.types.empty()) usage_error("--types is empty");
    } else if (a == "--kinds") {
      o.kinds = split(need(i), ',');
      for (auto& k : o.kinds)
        if (k != "exclusive" && k != "inclusive") usage_error("unknown kind '" + k + "'");
      if (o.kinds.empty()) usage_error("--kinds is empty");
    } else if (a == "--runs") {
      o.runs = parse_int(need(i), "--runs", 1);
    } else if (a == "--warmup") {
      o.warmup = parse_int(need(i), "--warmup", 0);
    } else if (a == "--csv") {
      o.csv_path = need(i);
    } else if (a == "--no-copy") {
      o.copy = false;
    } else if (a == "--copy-only") {
      o.scans = false;
    } else if (a == "--seed") {
      o.seed = parse_u64(need(i), "--seed");
      o.seed_given = true;
    } else if (a == "--f32-rtol") {
      std::string v = need(i);
      char* end = nullptr;
      o.f32_rtol = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(o.f32_rtol >= 0)) usage_error("bad --f32-rtol");
    } else if (a == "--device") {
      o.device = parse_int(need(i), "--device", 0);
    } else if (a == "--selects") {
      o.selects = split(need(i), ',');
      for (auto& s : o.selects)
        if (s != "if" && s != "flagged") usage_error("unknown --selects entry '" + s + "'");
    } else if (a == "--select-types") {
      o.select_types = split(need(i), ',');
      for (auto& t : o.select_types)
        if (t != "u32" && t != "u64" && t != "f64") usage_error("unknown --select-types entry '" + t + "'");
    } else if (a == "--densities") {
      o.densities.clear();
      for (auto& s : split(need(i), ',')) {
        o.densities.push_back(parse_u64(s, "density"));
        if (o.densities.back() > 100) usage_error("density above 100: " + s);
      }
      if (o.densities.empty()) usage_error("--densities is empty");
    } else if (a == "--select-only") {
      o.scans = false;
      o.copy = false;
    } else if (a == "--sync-each") {
      o.sync_each = true;
    } else if (a == "--mem-margin") {
      o.mem_margin = static_cast<std::size_t>(parse_u64(need(i), "--mem-margin")) << 20;
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  if (!o.copy && !o.scans && o.selects.empty()) usage_error("nothing to do (no scans, copy or selects)");
  return o;
}

// ---------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------

struct CheckResult {
  bool ok = true;
  double max_rel_err = 0;  // f32 only: max |got-ref| / sum|x|
};

template <typename T>
static CheckResult check_scan(const T* in, const T* out, std::uint64_t n, bool inclusive,
                              const Options& o, const char* kind) {
  CheckResult r;
  int reported = 0;
  auto report = [&](std::uint64_t i, double got, double want) {
    r.ok = false;
    if (reported++ < 10)
      std::fprintf(stderr, "  %s %s n=%llu: out[%llu] = %.17g, expected %.17g\n", TypeName<T>::value,
                   kind, static_cast<unsigned long long>(n), static_cast<unsigned long long>(i), got, want);
  };
  if constexpr (std::is_same_v<T, float>) {
    double acc = 0, abs_acc = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (inclusive) {
        acc += in[i];
        abs_acc += std::fabs(static_cast<double>(in[i]));
      }
      const double got = out[i];
      const double err = std::fabs(got - acc);
      const double scale = abs_acc;  // sum of |x| over the elements this output sums
      if (!(err <= o.f32_rtol * scale + o.f32_atol)) report(i, got, acc);  // also catches NaN
      if (scale > 0) r.max_rel_err = std::max(r.max_rel_err, err / scale);
      if (!inclusive) {
        acc += in[i];
        abs_acc += std::fabs(static_cast<double>(in[i]));
      }
    }
  } else {
    T acc = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (inclusive) acc = static_cast<T>(acc + in[i]);
      if (out[i] != acc) report(i, static_cast<double>(out[i]), static_cast<double>(acc));
      if (!inclusive) acc = static_cast<T>(acc + in[i]);
    }
  }
  if (reported > 10) std::fprintf(stderr, "  ... %d wrong elements in total\n", reported);
  return r;
}

// ---------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------

template <typename T, typename NumItemsT>
static cudaError_t cub_scan(bool inclusive, void* tmp, std::size_t& tmp_bytes, const T* d_in, T* d_out,
                            NumItemsT n, cudaStream_t stream) {
  return inclusive ? cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, d_in, d_out, n, stream)
                   : cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, d_in, d_out, n, stream);
}

// Counts that fit in int use 32-bit offsets inside CUB (what a user would get
// by passing an int); larger counts need 64-bit offsets.
template <typename T>
static cudaError_t cub_scan_any(bool inclusive, void* tmp, std::size_t& tmp_bytes, const T* d_in, T* d_out,
                                std::uint64_t n, cudaStream_t stream) {
  if (n <= static_cast<std::uint64_t>(INT_MAX))
    return cub_scan<T, int>(inclusive, tmp, tmp_bytes, d_in, d_out, static_cast<int>(n), stream);
  return cub_scan<T, std::int64_t>(inclusive, tmp, tmp_bytes, d_in, d_out, static_cast<std::int64_t>(n), stream);
}

template <typename T>
static void bench_type(const Options& o, Timer& timer, cudaStream_t stream, Output& out) {
  const char* tname = TypeName<T>::value;
  const std::uint64_t type_stream = std::is_same_v<T, std::uint32_t> ? 1 : std::is_same_v<T, float> ? 2 : 3;

  for (std::uint64_t n : o.sizes) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);

    // Temp-storage sizes, queried once per (kind, n), outside any timing.
    std::vector<std::size_t> tmp_bytes(o.kinds.size(), 0);
    std::size_t tmp_max = 0;
    for (std::size_t k = 0; k < o.kinds.size(); ++k) {
      CUDA_CHECK(cub_scan_any<T>(o.kinds[k] == "inclusive", nullptr, tmp_bytes[k], static_cast<const T*>(nullptr),
                                 static_cast<T*>(nullptr), n, stream));
      tmp_max = std::max(tmp_max, tmp_bytes[k]);
    }
    if (!fits(2 * bytes + tmp_max, o, tname, n, out)) continue;

    std::unique_ptr<T[]> h_in(new T[n]);
    std::unique_ptr<T[]> h_out(new T[n]);
    fill_random(h_in.get(), n, o.seed, type_stream * 0x100000000ull + n);

    T* d_in = nullptr;
    T* d_out = nullptr;
    void* d_tmp = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_tmp, std::max<std::size_t>(tmp_max, 1)));
    upload(d_in, h_in.get(), bytes, stream);

    for (std::size_t k = 0; k < o.kinds.size(); ++k) {
      const char* kind = o.kinds[k].c_str();
      const bool inclusive = o.kinds[k] == "inclusive";
      std::size_t tb = tmp_bytes[k];
      auto call = [&] {
        CUDA_CHECK(cub_scan_any<T>(inclusive, d_tmp, tb, d_in, d_out, n, stream));
        CUDA_CHECK_LAST();
      };

      // Verify one call on a poisoned output.
      CUDA_CHECK(cudaMemsetAsync(d_out, 0xFF, bytes, stream));
      call();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      download(h_out.get(), d_out, bytes, stream);
      CheckResult cr = check_scan(h_in.get(), h_out.get(), n, inclusive, o, kind);
      if (!cr.ok) mismatch_exit(out, "cub", tname, kind, n);

      // Time.
      CUDA_CHECK(cudaMemsetAsync(d_out, 0xFF, bytes, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      Stats s = timer.time(call, o.warmup, o.runs);

      char note[96];
      if constexpr (std::is_same_v<T, float>)
        std::snprintf(note, sizeof note, "verified (max rel err %.2e)", cr.max_rel_err);
      else
        std::snprintf(note, sizeof note, "verified (exact)");
      out.row("cub", "DeviceScan", tname, kind, n, sizeof(T), s, note);
    }

    CUDA_CHECK(cudaFree(d_tmp));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
  }
}

// select-if's predicate: keep v > threshold.
template <typename T>
struct GreaterThan {
  T threshold;
  __host__ __device__ bool operator()(const T& v) const { return v > threshold; }
};

template <typename T>
static void bench_select(const Options& o, const char* type, Timer& timer, cudaStream_t stream, Output& out) {
  for (const std::string& op : o.selects) {
    const bool flagged = op == "flagged";
    const char* algorithm = flagged ? "DeviceSelect::Flagged" : "DeviceSelect::If";
    for (std::uint64_t n : o.sizes) {
      if (n > static_cast<std::uint64_t>(INT_MAX)) {
        std::fprintf(stderr, "skip: %s n=%s: more than INT_MAX items\n", algorithm, size_label(n).c_str());
        ++out.skipped;
        continue;
      }
      const int items = static_cast<int>(n);
      const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
      const std::size_t flag_bytes = static_cast<std::size_t>(n) * sizeof(std::uint32_t);
      std::size_t tmp_bytes = 0;
      if (flagged)
        CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, tmp_bytes, static_cast<const T*>(nullptr),
                                              static_cast<const std::uint32_t*>(nullptr), static_cast<T*>(nullptr),
                                              static_cast<int*>(nullptr), items, stream));
      else
        CUDA_CHECK(cub::DeviceSelect::If(nullptr, tmp_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                         static_cast<int*>(nullptr), items, GreaterThan<T>{0}, stream));
      if (!fits(2 * bytes + (flagged ? flag_bytes : 0) + tmp_bytes, o, algorithm, n, out)) continue;

      std::vector<T> h_in(n), h_out(n);
      std::vector<std::uint32_t> h_flags;
      T* d_in = nullptr;
      std::uint32_t* d_flags = nullptr;
      T* d_out = nullptr;
      int* d_count = nullptr;
      void* d_tmp = nullptr;
      CUDA_CHECK(cudaMalloc(&d_in, bytes));
      CUDA_CHECK(cudaMalloc(&d_out, bytes));
      CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
      CUDA_CHECK(cudaMalloc(&d_tmp, std::max<std::size_t>(tmp_bytes, 1)));
      if (flagged) CUDA_CHECK(cudaMalloc(&d_flags, flag_bytes));

      for (std::uint64_t density : o.densities) {
        fill_random(h_in.data(), n, o.seed, 5 * 0x100000000ull + n * 101 + density);
        const std::uint64_t kept_target = n * density / 100;
        GreaterThan<T> pred{std::numeric_limits<T>::lowest()};
        std::vector<T> expected;
        if (flagged) {
          h_flags.assign(n, 0);
          std::fill(h_flags.begin(), h_flags.begin() + static_cast<std::ptrdiff_t>(kept_target), 1u);
          std::mt19937_64 shuffle_rng(splitmix64(o.seed + n * 101 + density));
          std::shuffle(h_flags.begin(), h_flags.end(), shuffle_rng);
          for (std::uint64_t i = 0; i < n; ++i)
            if (h_flags[i]) expected.push_back(h_in[i]);
          upload(d_flags, h_flags.data(), flag_bytes, stream);
        } else {
          if (kept_target < n) {
            std::vector<T> sorted = h_in;
            auto nth = sorted.begin() + static_cast<std::ptrdiff_t>(n - kept_target - 1);
            std::nth_element(sorted.begin(), nth, sorted.end());
            pred.threshold = *nth;
          }
          for (std::uint64_t i = 0; i < n; ++i)
            if (pred(h_in[i])) expected.push_back(h_in[i]);
        }
        upload(d_in, h_in.data(), bytes, stream);
        std::size_t tb = tmp_bytes;
        auto call = [&] {
          if (flagged)
            CUDA_CHECK(cub::DeviceSelect::Flagged(d_tmp, tb, d_in, d_flags, d_out, d_count, items, stream));
          else
            CUDA_CHECK(cub::DeviceSelect::If(d_tmp, tb, d_in, d_out, d_count, items, pred, stream));
          CUDA_CHECK_LAST();
        };
        const std::string kind = std::string(flagged ? "select-flagged-" : "select-if-") +
                                 std::to_string(density) + "%";

        // Verify one call on a poisoned output and count.
        CUDA_CHECK(cudaMemsetAsync(d_out, 0xFF, bytes, stream));
        CUDA_CHECK(cudaMemsetAsync(d_count, 0xFF, sizeof(int), stream));
        call();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        int got_count = -1;
        download(&got_count, d_count, sizeof(int), stream);
        download(h_out.data(), d_out, bytes, stream);
        if (got_count != static_cast<int>(expected.size()) ||
            std::memcmp(h_out.data(), expected.data(), expected.size() * sizeof(T)) != 0) {
          std::fprintf(stderr, "  %s: count %d, expected %zu\n", kind.c_str(), got_count, expected.size());
          mismatch_exit(out, algorithm, type, kind.c_str(), n);
        }

        Stats s = timer.time(call, o.warmup, o.runs);
        const double moved = static_cast<double>(n) * (sizeof(T) + (flagged ? 4 : 0)) +
                             static_cast<double>(expected.size()) * sizeof(T);
        out.row_bytes("cub", algorithm, type, kind.c_str(), n, moved, s, "verified (exact)");
      }
      CUDA_CHECK(cudaFree(d_tmp));
      CUDA_CHECK(cudaFree(d_count));
      CUDA_CHECK(cudaFree(d_out));
      CUDA_CHECK(cudaFree(d_in));
      if (d_flags) CUDA_CHECK(cudaFree(d_flags));
    }
  }
}

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------

int main(int argc, char** argv) {
  Options o = parse_args(argc, argv);
  if (!o.seed_given) o.seed = fresh_seed();

  const cudaDeviceProp prop = open_device(o.device);
  std::size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));

  Output out;
  if (!o.csv_path.empty()) {
    out.csv = std::fopen(o.csv_path.c_str(), "w");
    if (!out.csv) {
      std::fprintf(stderr, "error: cannot open %s: %s\n", o.csv_path.c_str(), std::strerror(errno));
      return 2;
    }
  }

  Metadata metadata;
  add_run_metadata(metadata, "cub_scan_bench", o.device, prop);
  auto add = [&](const char* key, const std::string& value) { metadata.add(key, value); };
  char buf[256];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(o.seed));
  add("seed", buf);
  add("runs", std::to_string(o.runs));
  add("warmup", std::to_string(o.warmup));
  add("timing", timing_description(o.sync_each));
  add("bytes_per_element_moved", "2*sizeof(type) (read input + write output); gbps = bytes / median / 1e9; "
                                 "compaction: n*4 read + kept*4 written (+ n*4 flags read for Flagged)");
  std::snprintf(buf, sizeof buf, "integers exact; f32 |got-ref| <= %g*sum|x| + %g (ref in double)", o.f32_rtol,
                o.f32_atol);
  add("verify", buf);

  const std::string& meta = metadata.text;
  std::fputs(meta.c_str(), out.csv);
  std::fputs("impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps\n", out.csv);
  std::fflush(out.csv);

  std::fputs(meta.c_str(), stderr);
  std::fprintf(stderr, "# free device memory at start: %.2f of %.2f GiB\n", gib(free_b), gib(total_b));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    Timer timer(stream, o.sync_each);
    if (o.scans) {
      for (const std::string& t : o.types) {
        if (t == "u32") bench_type<std::uint32_t>(o, timer, stream, out);
        if (t == "f32") bench_type<float>(o, timer, stream, out);
        if (t == "u64") bench_type<std::uint64_t>(o, timer, stream, out);
      }
    }
    if (o.copy) bench_copy(o, timer, stream, out);
    for (const std::string& t : o.select_types) {
      if (t == "u32") bench_select<std::uint32_t>(o, "u32", timer, stream, out);
      if (t == "u64") bench_select<std::uint64_t>(o, "u64", timer, stream, out);
      if (t == "f64") bench_select<double>(o, "f64", timer, stream, out);
    }
    std::fprintf(stderr, "done: %d rows written, all verified; %d size(s) skipped for memory", out.rows,
                 out.skipped);
    if (timer.block_timeouts() > 0)
      std::fprintf(stderr, "; WARNING: %d batch(es) hit the blocking-kernel timeout", timer.block_timeouts());
    std::fprintf(stderr, "\n");
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaGetLastError());
  if (out.csv != stdout && std::fclose(out.csv) != 0) {
    std::fprintf(stderr, "error: writing %s failed\n", o.csv_path.c_str());
    return 2;
  }
  return 0;
}
