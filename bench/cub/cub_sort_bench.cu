// cub_sort_bench.cu - reference timings of NVIDIA CUB's radix sort, for comparison with gpuscan_bench
// --ops sort (bench/sort_bench.hpp) in the same device call.
//
// Times, each case checked once against std::stable_sort on the host first:
//   * cub::DeviceRadixSort::SortKeys on u32 keys (kind "keys") and u64 keys (--u64),
//   * cub::DeviceRadixSort::SortPairs on u32 keys with u32 values (kind "pairs-u32"; the values are the
//     keys' positions, so the check sees that the sort is stable),
// keys uniform over their whole range (fill_random), all bits sorted, from an input buffer that every
// call leaves as it was into an output buffer (as gpuscan's record_sort), so each timed call sorts the
// same random keys.
//
// CSV as the other CUB benchmarks: impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps after
// `# key: value` metadata; gbps = 2*n*(key + value bytes) / median: every key and value read and
// written once, the least a sort moves (gpuscan_bench counts the same).
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_sort_bench cub_sort_bench.cu
// Run:   ./cub_sort_bench --sizes 2^22,2^24,2^28 --u64 --runs 30 --warmup 1000 --csv cub_sort.csv
// Exit status: 0 ok, 1 MISMATCH, 2 CUDA or usage error.

#include <cub/device/device_radix_sort.cuh>

#include "cub_bench_common.cuh"  // checks, parsing, random input, Timer, Output, metadata

#include <algorithm>
#include <numeric>

struct Options {
  std::vector<std::uint64_t> sizes{std::uint64_t(1) << 22, std::uint64_t(1) << 24, std::uint64_t(1) << 28};
  bool u64 = false;
  int runs = 30;
  int warmup = 5;
  std::string csv_path;
  int device = 0;
  std::uint64_t seed = 1;
  std::size_t mem_margin = std::size_t(256) << 20;
};

static Options parse_args(int argc, char** argv) {
  Options o;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) usage_error(std::string("missing value for ") + argv[i]);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes") {
      o.sizes.clear();
      for (auto& s : split(need(i), ',')) o.sizes.push_back(parse_size(s));
    } else if (a == "--u64") {
      o.u64 = true;
    } else if (a == "--runs") {
      o.runs = parse_int(need(i), "--runs", 1);
    } else if (a == "--warmup") {
      o.warmup = parse_int(need(i), "--warmup", 0);
    } else if (a == "--csv") {
      o.csv_path = need(i);
    } else if (a == "--device") {
      o.device = parse_int(need(i), "--device", 0);
    } else {
      usage_error("unknown option " + a +
                  " (--sizes LIST, --u64, --runs N, --warmup N, --csv PATH, --device I)");
    }
  }
  return o;
}

// One case: n keys of type K, with u32 values where `pairs`.
template <typename K>
static void bench_case(const Options& o, std::uint64_t n, bool pairs, Timer& timer, cudaStream_t stream,
                       Output& out) {
  const char* type = TypeName<K>::value;
  const char* kind = pairs ? "pairs-u32" : "keys";
  const char* algorithm = pairs ? "DeviceRadixSort::SortPairs" : "DeviceRadixSort::SortKeys";
  const int items = static_cast<int>(n);
  std::vector<K> keys(n);
  fill_random(keys.data(), n, o.seed, pairs ? 2 : 1);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });

  K* d_keys_in = nullptr;
  K* d_keys_out = nullptr;
  std::uint32_t* d_values_in = nullptr;
  std::uint32_t* d_values_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_keys_in, n * sizeof(K)));
  CUDA_CHECK(cudaMalloc(&d_keys_out, n * sizeof(K)));
  if (pairs) {
    CUDA_CHECK(cudaMalloc(&d_values_in, n * 4));
    CUDA_CHECK(cudaMalloc(&d_values_out, n * 4));
  }
  std::size_t temp_bytes = 0;
  if (pairs) CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, d_keys_in, d_keys_out, d_values_in,
                                                        d_values_out, items, 0, int(sizeof(K) * 8), stream));
  else CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, d_keys_in, d_keys_out, items, 0,
                                                 int(sizeof(K) * 8), stream));
  void* d_temp = nullptr;
  CUDA_CHECK(cudaMalloc(&d_temp, std::max<std::size_t>(temp_bytes, 1)));
  upload(d_keys_in, keys.data(), n * sizeof(K), stream);
  if (pairs) {
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0u);
    upload(d_values_in, positions.data(), n * 4, stream);
  }
  CUDA_CHECK(cudaMemsetAsync(d_keys_out, 0xFF, n * sizeof(K), stream));
  if (pairs) CUDA_CHECK(cudaMemsetAsync(d_values_out, 0xFF, n * 4, stream));
  auto call = [&] {
    std::size_t tb = temp_bytes;
    if (pairs) CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d_temp, tb, d_keys_in, d_keys_out, d_values_in, d_values_out,
                                                          items, 0, int(sizeof(K) * 8), stream));
    else CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, tb, d_keys_in, d_keys_out, items, 0, int(sizeof(K) * 8),
                                                   stream));
    CUDA_CHECK_LAST();
  };
  call();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<K> got(n);
  download(got.data(), d_keys_out, n * sizeof(K), stream);
  bool ok = true;
  for (std::uint64_t i = 0; i < n && ok; ++i) ok = got[i] == keys[order[i]];
  if (ok && pairs) {
    std::vector<std::uint32_t> got_values(n);
    download(got_values.data(), d_values_out, n * 4, stream);
    ok = got_values == order;
  }
  if (!ok) mismatch_exit(out, algorithm, type, kind, n);
  const Stats s = timer.time(call, o.warmup, o.runs);
  out.row_bytes("cub", algorithm, type, kind, n, 2.0 * double(n) * double(sizeof(K) + (pairs ? 4 : 0)), s,
                "verified (exact)");
  CUDA_CHECK(cudaFree(d_keys_in));
  CUDA_CHECK(cudaFree(d_keys_out));
  if (pairs) {
    CUDA_CHECK(cudaFree(d_values_in));
    CUDA_CHECK(cudaFree(d_values_out));
  }
  CUDA_CHECK(cudaFree(d_temp));
}

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  const cudaDeviceProp prop = open_device(o.device);
  Output out;
  if (!o.csv_path.empty() && !(out.csv = std::fopen(o.csv_path.c_str(), "w"))) {
    std::fprintf(stderr, "error: cannot open %s\n", o.csv_path.c_str());
    return 2;
  }
  Metadata meta;
  add_run_metadata(meta, "cub_sort_bench", o.device, prop);
  meta.add("runs", std::to_string(o.runs));
  meta.add("warmup", std::to_string(o.warmup));
  meta.add("timing", timing_description(false));
  meta.add("keys", "uniform over the key type (fill_random, seed 1), all bits; input kept, sorted into an output");
  std::fputs(meta.text.c_str(), out.csv);
  std::fputs("impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps\n", out.csv);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    Timer timer(stream, false);
    for (const std::uint64_t n : o.sizes) {
      if (n > std::uint64_t(INT32_MAX)) continue;
      if (!fits(std::size_t(n) * 24, o, "sort", n, out)) continue;
      bench_case<std::uint32_t>(o, n, false, timer, stream, out);
      bench_case<std::uint32_t>(o, n, true, timer, stream, out);
      if (o.u64) bench_case<std::uint64_t>(o, n, false, timer, stream, out);
    }
    std::fprintf(stderr, "done: %d rows written, all verified\n", out.rows);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (out.csv != stdout) std::fclose(out.csv);
  return 0;
}
