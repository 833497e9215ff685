// cub_bench_common.cuh - host-side pieces shared by the CUB reference benchmarks
// (cub_scan_bench.cu, cub_family_bench.cu): error checks, argument parsing helpers, the counter-based
// random input, the timer (CUDA events, calls held back behind a host-flag spin kernel so the events
// see GPU time only), CSV output, the CSV metadata and the cudaMemcpyAsync copy roofline.
// Each benchmark is one translation unit that includes this once, so everything here is static.
#pragma once

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
// Argument parsing
// ---------------------------------------------------------------------------

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

[[noreturn]] static void mismatch_exit(Output& out, const char* what, const char* type, const char* kind,
                                       std::uint64_t n) {
  std::fprintf(stderr, "MISMATCH: %s %s %s n=%llu\n", what, type, kind, static_cast<unsigned long long>(n));
  std::printf("MISMATCH: %s %s %s n=%llu\n", what, type, kind, static_cast<unsigned long long>(n));
  std::fflush(stdout);
  if (out.csv != stdout) std::fclose(out.csv);
  std::exit(1);
}

// ---------------------------------------------------------------------------
// Device memory
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

// Opts: any options struct with mem_margin (bytes to leave free).
template <typename Opts>
static bool fits(std::size_t need, const Opts& o, const char* what, std::uint64_t n, Output& out) {
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

// The CUDA copy roofline: a device-to-device cudaMemcpyAsync of n u32 per size in o.sizes.
template <typename Opts>
static void bench_copy(const Opts& o, Timer& timer, cudaStream_t stream, Output& out) {
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


// ---------------------------------------------------------------------------
// Device, seed and CSV metadata
// ---------------------------------------------------------------------------

// A seed nobody chose: random_device mixed with the clock.
[[maybe_unused]] static std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
}

// Selects the device (exit 2 if there is no such index) and returns its properties.
static cudaDeviceProp open_device(int device) {
  int device_count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&device_count));
  if (device >= device_count) usage_error("--device " + std::to_string(device) + ": only " +
                                          std::to_string(device_count) + " device(s)");
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop;
}

// `# key: value` lines, written before the CSV header (and echoed to stderr).
struct Metadata {
  std::string text;
  void add(const char* key, const std::string& value) {
    text += "# ";
    text += key;
    text += ": ";
    text += value;
    text += "\n";
  }
};

// tool, date, device, driver, runtime, CUB and nvcc versions, in this order.
static void add_run_metadata(Metadata& meta, const char* tool, int device, const cudaDeviceProp& prop) {
  int driver_version = 0, runtime_version = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime_version));
  char when[64];
  std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  char buf[256];
  meta.add("tool", tool);
  meta.add("date_utc", when);
  meta.add("device", prop.name);
  std::snprintf(buf, sizeof buf, "%d (PCI %04x:%02x:%02x)", device, prop.pciDomainID, prop.pciBusID,
                prop.pciDeviceID);
  meta.add("device_index", buf);
  meta.add("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  meta.add("sm_count", std::to_string(prop.multiProcessorCount));
  std::snprintf(buf, sizeof buf, "%zu (%.1f GiB)", static_cast<std::size_t>(prop.totalGlobalMem),
                gib(prop.totalGlobalMem));
  meta.add("global_mem_bytes", buf);
  meta.add("l2_cache_bytes", std::to_string(prop.l2CacheSize));
  meta.add("memory_bus_width_bits", std::to_string(prop.memoryBusWidth));
  std::snprintf(buf, sizeof buf, "%d.%d (%d)", driver_version / 1000, (driver_version % 1000) / 10, driver_version);
  meta.add("cuda_driver_version", buf);
  std::snprintf(buf, sizeof buf, "%d.%d (%d)", runtime_version / 1000, (runtime_version % 1000) / 10,
                runtime_version);
  meta.add("cuda_runtime_version", buf);
  std::snprintf(buf, sizeof buf, "%d.%d.%d (CUB_VERSION %d)", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                CUB_SUBMINOR_VERSION, CUB_VERSION);
  meta.add("cub_version", buf);
  std::snprintf(buf, sizeof buf, "%d.%d.%d", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__);
  meta.add("nvcc_version", buf);
}

static const char* timing_description(bool sync_each) {
  return sync_each ? "CUDA events around each call, stream synchronized after each call"
                   : "CUDA events around each call; calls queued behind a blocking kernel in "
                     "batches of up to 64 and released together (GPU time only)";
}
