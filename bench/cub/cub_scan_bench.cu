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
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <limits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

// ---------------------------------------------------------------------------
// Error checking
// ---------------------------------------------------------------------------

#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    cudaError_t cuda_check_err_ = (expr);                                                  \
    if (cuda_check_err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "CUDA error %s (%d): %s\n  at %s:%d: %s\n",                     \
                   cudaGetErrorName(cuda_check_err_), static_cast<int>(cuda_check_err_),   \
                   cudaGetErrorString(cuda_check_err_), __FILE__, __LINE__, #expr);        \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

// After a kernel launch: catch both launch errors and sticky errors.
#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())

[[noreturn]] static void usage_error(const std::string& msg) {
  std::fprintf(stderr, "error: %s (see --help)\n", msg.c_str());
  std::exit(2);
}

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

static std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    std::string item = s.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    if (!item.empty()) out.push_back(item);
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

static std::uint64_t parse_u64(const std::string& s, const char* what) {
  if (s.empty() || s[0] == '-') usage_error(std::string("bad ") + what + ": '" + s + "'");
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == s.c_str() || *end != '\0')
    usage_error(std::string("bad ") + what + ": '" + s + "'");
  return v;
}

static std::uint64_t parse_size(const std::string& s) {
  std::size_t caret = s.find('^');
  std::uint64_t v;
  if (caret != std::string::npos) {
    if (s.substr(0, caret) != "2") usage_error("size '" + s + "': only 2^K is supported");
    std::uint64_t k = parse_u64(s.substr(caret + 1), "size exponent");
    if (k > 40) usage_error("size '" + s + "' too large");
    v = std::uint64_t(1) << k;
  } else {
    v = parse_u64(s, "size");
  }
  if (v == 0) usage_error("size must be > 0");
  return v;
}

static int parse_int(const std::string& s, const char* what, int min_value) {
  std::uint64_t v = parse_u64(s, what);
  if (v > static_cast<std::uint64_t>(INT_MAX) || static_cast<int>(v) < min_value)
    usage_error(std::string(what) + " out of range: " + s);
  return static_cast<int>(v);
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
// Random input (counter-based, so values depend only on (seed, stream, i))
// ---------------------------------------------------------------------------

static inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T>
static void fill_random(T* h, std::uint64_t n, std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t base = splitmix64(seed ^ splitmix64(stream));
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t r = splitmix64(base + i);
    if constexpr (std::is_same_v<T, float>) {
      h[i] = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 random bits
    } else if constexpr (std::is_same_v<T, double>) {
      h[i] = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1), 53 random bits
    } else if constexpr (std::is_same_v<T, std::uint32_t>) {
      h[i] = static_cast<std::uint32_t>(r >> 32);  // full range; sums wrap mod 2^32
    } else {
      h[i] = static_cast<T>(r);  // full range; sums wrap mod 2^64
    }
  }
}

// ---------------------------------------------------------------------------
// Type helpers
// ---------------------------------------------------------------------------

template <typename T> struct TypeName;
template <> struct TypeName<std::uint32_t> { static constexpr const char* value = "u32"; };
template <> struct TypeName<float> { static constexpr const char* value = "f32"; };
template <> struct TypeName<std::uint64_t> { static constexpr const char* value = "u64"; };

static std::string size_label(std::uint64_t n) {
  if ((n & (n - 1)) == 0) {
    int k = 0;
    while ((std::uint64_t(1) << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

static double gib(std::size_t bytes) { return static_cast<double>(bytes) / double(1ull << 30); }

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------

// Spins until the host sets *flag (or a timeout passes), holding back the work
// enqueued after it on the same stream.
__global__ void block_stream_kernel(const volatile int* flag, volatile int* timed_out,
                                    unsigned long long timeout_ns) {
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*flag == 0) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) {
      *timed_out = 1;
      break;
    }
    __nanosleep(1000);
  }
}

struct Stats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
};

static Stats make_stats(std::vector<float> ms) {
  Stats s;
  std::sort(ms.begin(), ms.end());
  s.runs = static_cast<int>(ms.size());
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  std::size_t m = ms.size() / 2;
  s.median_ms = (ms.size() % 2) ? ms[m] : 0.5 * (double(ms[m - 1]) + double(ms[m]));
  return s;
}

class Timer {
 public:
  static constexpr int kMaxBatch = 64;  // calls queued behind one blocking kernel

  Timer(cudaStream_t stream, bool sync_each) : stream_(stream), sync_each_(sync_each) {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(int), cudaHostAllocMapped));
    host_[0] = host_[1] = 0;
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), host_, 0));
    start_.resize(kMaxBatch);
    stop_.resize(kMaxBatch);
    for (int i = 0; i < kMaxBatch; ++i) {
      CUDA_CHECK(cudaEventCreate(&start_[i]));
      CUDA_CHECK(cudaEventCreate(&stop_[i]));
    }
  }
  ~Timer() {
    for (int i = 0; i < kMaxBatch; ++i) {
      cudaEventDestroy(start_[i]);
      cudaEventDestroy(stop_[i]);
    }
    cudaFreeHost(host_);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  int block_timeouts() const { return block_timeouts_; }

  // call() enqueues exactly one operation on stream_ and checks its errors.
  template <typename F>
  Stats time(F&& call, int warmup, int runs) {
    for (int i = 0; i < warmup; ++i) call();
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<float> ms;
    ms.reserve(runs);
    for (int done = 0; done < runs;) {
      const int batch = sync_each_ ? 1 : std::min(kMaxBatch, runs - done);
      if (!sync_each_) {
        __atomic_store_n(&host_[0], 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&host_[1], 0, __ATOMIC_SEQ_CST);
        block_stream_kernel<<<1, 1, 0, stream_>>>(dev_, dev_ + 1, 10ull * 1000 * 1000 * 1000);
        CUDA_CHECK_LAST();
      }
      for (int i = 0; i < batch; ++i) {
        CUDA_CHECK(cudaEventRecord(start_[i], stream_));
        call();
        CUDA_CHECK(cudaEventRecord(stop_[i], stream_));
      }
      if (!sync_each_) __atomic_store_n(&host_[0], 1, __ATOMIC_SEQ_CST);  // release the batch
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      CUDA_CHECK_LAST();
      if (!sync_each_ && __atomic_load_n(&host_[1], __ATOMIC_SEQ_CST) != 0) {
        ++block_timeouts_;
        std::fprintf(stderr,
                     "warning: blocking kernel timed out before the batch was enqueued; "
                     "these timings may include host launch gaps\n");
      }
      for (int i = 0; i < batch; ++i) {
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, start_[i], stop_[i]));
        ms.push_back(t);
      }
      done += batch;
    }
    return make_stats(std::move(ms));
  }

 private:
  cudaStream_t stream_;
  bool sync_each_;
  int* host_ = nullptr;  // [0] release flag, [1] timed-out flag (mapped pinned memory)
  int* dev_ = nullptr;
  std::vector<cudaEvent_t> start_, stop_;
  int block_timeouts_ = 0;
};

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

struct Output {
  std::FILE* csv = stdout;
  int rows = 0;
  int skipped = 0;
  void row(const char* impl, const char* algorithm, const char* type, const char* kind,
           std::uint64_t n, std::size_t elem_bytes, const Stats& s, const char* note) {
    row_bytes(impl, algorithm, type, kind, n, 2.0 * static_cast<double>(n) * static_cast<double>(elem_bytes), s,
              note);
  }
  // A row whose gbps counts `bytes` moved (compaction).
  void row_bytes(const char* impl, const char* algorithm, const char* type, const char* kind,
                 std::uint64_t n, double bytes, const Stats& s, const char* note) {
    const double gbps = bytes / (s.median_ms * 1e6);  // B / (ms * 1e-3) / 1e9
    std::fprintf(csv, "%s,%s,%s,%s,%llu,%.6f,%.6f,%.6f,%d,%.3f\n", impl, algorithm, type, kind,
                 static_cast<unsigned long long>(n), s.median_ms, s.min_ms, s.max_ms, s.runs, gbps);
    std::fflush(csv);
    std::fprintf(stderr, "%-11s %-4s %-18s n=%-6s median %10.5f ms  min %10.5f  max %10.5f  %8.1f GB/s  %s\n",
                 impl, type, kind, size_label(n).c_str(), s.median_ms, s.min_ms, s.max_ms, gbps, note);
    ++rows;
  }
};

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

[[noreturn]] static void mismatch_exit(Output& out, const char* what, const char* type, const char* kind,
                                       std::uint64_t n) {
  std::fprintf(stderr, "MISMATCH: %s %s %s n=%llu\n", what, type, kind, static_cast<unsigned long long>(n));
  std::printf("MISMATCH: %s %s %s n=%llu\n", what, type, kind, static_cast<unsigned long long>(n));
  std::fflush(stdout);
  if (out.csv != stdout) std::fclose(out.csv);
  std::exit(1);
}

// ---------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------

// Copies are ordered on the benchmark stream (a non-blocking stream does not
// synchronize with the legacy default stream that plain cudaMemcpy uses).
static void upload(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}
static void download(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

static bool fits(std::size_t need, const Options& o, const char* what, std::uint64_t n, Output& out) {
  std::size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (need + o.mem_margin > free_b) {
    std::fprintf(stderr, "skip: %s n=%s needs %.2f GiB (+%.2f GiB margin), only %.2f GiB free\n", what,
                 size_label(n).c_str(), gib(need), gib(o.mem_margin), gib(free_b));
    ++out.skipped;
    return false;
  }
  return true;
}

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

static void bench_copy(const Options& o, Timer& timer, cudaStream_t stream, Output& out) {
  for (std::uint64_t n : o.sizes) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(std::uint32_t);
    if (!fits(2 * bytes, o, "copy u32", n, out)) continue;

    std::unique_ptr<std::uint32_t[]> h_in(new std::uint32_t[n]);
    std::unique_ptr<std::uint32_t[]> h_out(new std::uint32_t[n]);
    fill_random(h_in.get(), n, o.seed, 4 * 0x100000000ull + n);

    std::uint32_t* d_in = nullptr;
    std::uint32_t* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    upload(d_in, h_in.get(), bytes, stream);

    auto call = [&] {
      CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK_LAST();
    };

    CUDA_CHECK(cudaMemsetAsync(d_out, 0xFF, bytes, stream));
    call();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    download(h_out.get(), d_out, bytes, stream);
    if (std::memcmp(h_in.get(), h_out.get(), bytes) != 0) mismatch_exit(out, "cuda-memcpy", "u32", "copy", n);

    CUDA_CHECK(cudaMemsetAsync(d_out, 0xFF, bytes, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    Stats s = timer.time(call, o.warmup, o.runs);
    out.row("cuda-memcpy", "copy", "u32", "copy", n, sizeof(std::uint32_t), s, "verified (exact)");

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
  if (!o.seed_given) {
    std::random_device rd;
    o.seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
             static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  }

  int device_count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&device_count));
  if (o.device >= device_count) usage_error("--device " + std::to_string(o.device) + ": only " +
                                            std::to_string(device_count) + " device(s)");
  CUDA_CHECK(cudaSetDevice(o.device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
  int driver_version = 0, runtime_version = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime_version));
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

  char when[64];
  std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

  std::string meta;
  auto add = [&](const char* key, const std::string& value) {
    meta += "# ";
    meta += key;
    meta += ": ";
    meta += value;
    meta += "\n";
  };
  char buf[256];
  add("tool", "cub_scan_bench");
  add("date_utc", when);
  add("device", prop.name);
  std::snprintf(buf, sizeof buf, "%d (PCI %04x:%02x:%02x)", o.device, prop.pciDomainID, prop.pciBusID,
                prop.pciDeviceID);
  add("device_index", buf);
  add("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  add("sm_count", std::to_string(prop.multiProcessorCount));
  std::snprintf(buf, sizeof buf, "%zu (%.1f GiB)", static_cast<std::size_t>(prop.totalGlobalMem),
                gib(prop.totalGlobalMem));
  add("global_mem_bytes", buf);
  add("l2_cache_bytes", std::to_string(prop.l2CacheSize));
  add("memory_bus_width_bits", std::to_string(prop.memoryBusWidth));
  std::snprintf(buf, sizeof buf, "%d.%d (%d)", driver_version / 1000, (driver_version % 1000) / 10, driver_version);
  add("cuda_driver_version", buf);
  std::snprintf(buf, sizeof buf, "%d.%d (%d)", runtime_version / 1000, (runtime_version % 1000) / 10,
                runtime_version);
  add("cuda_runtime_version", buf);
  std::snprintf(buf, sizeof buf, "%d.%d.%d (CUB_VERSION %d)", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                CUB_SUBMINOR_VERSION, CUB_VERSION);
  add("cub_version", buf);
  std::snprintf(buf, sizeof buf, "%d.%d.%d", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__);
  add("nvcc_version", buf);
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(o.seed));
  add("seed", buf);
  add("runs", std::to_string(o.runs));
  add("warmup", std::to_string(o.warmup));
  add("timing", o.sync_each ? "CUDA events around each call, stream synchronized after each call"
                            : "CUDA events around each call; calls queued behind a blocking kernel in "
                              "batches of up to 64 and released together (GPU time only)");
  add("bytes_per_element_moved", "2*sizeof(type) (read input + write output); gbps = bytes / median / 1e9; "
                                 "compaction: n*4 read + kept*4 written (+ n*4 flags read for Flagged)");
  std::snprintf(buf, sizeof buf, "integers exact; f32 |got-ref| <= %g*sum|x| + %g (ref in double)", o.f32_rtol,
                o.f32_atol);
  add("verify", buf);

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
