// Weak scaling of gpuscan::mpi's scan on GPU buffers (docs/mpi.md): every rank scans --n u32 of its own,
// device-local, so time(np 1) / time(np 2) is the weak-scaling efficiency. Prints one CSV row on rank 0:
// the distributed exclusive scan's median and minimum wall time (the slowest rank's, per run), then the
// same for record_scan of the same n alone (no reduce, no MPI), so the distributed step's overhead shows.
//   mpirun -np 2 build/bench/gpuscan_mpi_bench --n 268435456 --runs 20
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpuscan/mpi.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace {

using namespace gpuscan;
constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// The slowest rank's wall time of `call` in ms, for each of `runs` runs after `warmup` untimed ones:
// all ranks start together (MPI_Barrier), and each call blocks until its GPU is done.
template <class F>
std::vector<double> time_slowest(uint32_t warmup, uint32_t runs, F&& call) {
  std::vector<double> times;
  for (uint32_t i = 0; i < warmup + runs; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const double mine = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (i >= warmup) times.push_back(slowest);
  }
  return times;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

int run(int argc, char** argv) {
  uint64_t n = uint64_t{1} << 28;
  uint32_t runs = 20, warmup = 5;
  uint64_t seed = std::random_device{}();
  CLI::App app{"Weak scaling of gpuscan::mpi::exclusive_scan on GPU buffers (u32, add), n elements per rank"};
  app.add_option("--n", n, "u32 elements per rank (default 2^28)")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--runs", runs, "timed runs (default 20)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed runs first (default 5)");
  app.add_option("--seed", seed, "random data seed (rank r draws with seed + r)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  const Context ctx = mpi::create_context(MPI_COMM_WORLD);
  const uint64_t bytes = n * sizeof(uint32_t);
  vk::OwnedBuffer in(ctx.physical_device(), ctx.device(), bytes, kUsage, vk::MemoryKind::device_local);
  vk::OwnedBuffer out(ctx.physical_device(), ctx.device(), bytes, kUsage, vk::MemoryKind::device_local);
  vk::OwnedBuffer staging(ctx.physical_device(), ctx.device(), bytes,
                          VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          vk::MemoryKind::host_visible);

  // Random data, uploaded once; its host sum gives this rank's expected carry-in.
  std::vector<uint32_t> data(n);
  std::mt19937_64 rng(seed + static_cast<uint64_t>(rank));
  for (uint32_t& x : data) x = static_cast<uint32_t>(rng());
  std::memcpy(staging.mapped(), data.data(), bytes);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::copy_with_barrier(cmd, staging.handle(), in.handle(), bytes, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    vkCmdFillBuffer(cmd, out.handle(), 0, VK_WHOLE_SIZE, 0xA5A5A5A5u);  // poison: unwritten output fails
  });
  const mpi::DevicePiece piece{in.view(), out.view(), n};

  // Check once, before timing: this rank's piece against the CPU with the carry-in from the host sums.
  uint32_t local_sum = 0, carry = 0;
  for (uint32_t x : data) local_sum += x;
  MPI_Exscan(&local_sum, &carry, 1, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) carry = 0;
  mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, piece);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {  // the call's last barrier covers this copy
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, out.handle(), staging.handle(), 1, &region);
    vk::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
  });
  const auto* got = static_cast<const uint32_t*>(staging.mapped());
  uint64_t mismatches = 0, first_bad = n;
  uint32_t running = carry;
  for (uint64_t i = 0; i < n; ++i) {
    if (got[i] != running && mismatches++ == 0) first_bad = i;
    running += data[i];
  }
  if (mismatches)
    std::fprintf(stderr, "rank %d: %llu mismatches, first at %llu\n", rank, static_cast<unsigned long long>(mismatches),
                 static_cast<unsigned long long>(first_bad));
  uint64_t all_mismatches = 0;
  MPI_Allreduce(&mismatches, &all_mismatches, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

  const std::vector<double> distributed =
      time_slowest(warmup, runs, [&] { mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, piece); });

  // The local scan alone: record_scan of the same n, temp allocated once, no reduce and no MPI.
  const ScanConfig config;
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  vk::OwnedBuffer temp(ctx.physical_device(), ctx.device(), std::max<VkDeviceSize>(req.size, 4), req.usage,
                       vk::MemoryKind::device_local);
  const std::vector<double> local = time_slowest(warmup, runs, [&] {
    vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
      vk::memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
      record_scan(ctx, cmd, {config, n, in.view(), out.view(), req.size ? temp.view() : BufferView{}});
    });
  });

  if (rank == 0) {
    std::printf("# device of rank 0: %s; algorithm: %s\n", ctx.device_info().name.c_str(),
                std::string(to_string(ctx.resolve(config, n))).c_str());
    std::printf("ranks,n_per_rank,median_ms,min_ms,local_median_ms,local_min_ms,runs,mismatches\n");
    std::printf("%d,%llu,%.4f,%.4f,%.4f,%.4f,%u,%llu\n", ranks, static_cast<unsigned long long>(n),
                median(distributed), minimum(distributed), median(local), minimum(local), runs,
                static_cast<unsigned long long>(all_mismatches));
  }
  return all_mismatches ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 1;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuscan_mpi_bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
