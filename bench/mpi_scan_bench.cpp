// Weak scaling of gpuscan::mpi's scan on GPU buffers (docs/mpi.md): every rank scans --n u32 of its own,
// device-local, so time(np 1) / time(np 2) is the weak-scaling efficiency. Prints one CSV row on rank 0:
// the distributed exclusive scan's median and minimum wall time (the slowest rank's, per run), then the
// same for record_scan of the same n alone (no reduce, no MPI), so the distributed step's overhead shows.
// Every rank's device (name, PCI bus, UUID) is printed as comment lines first, so a run shows which GPU
// each rank took. --breakdown adds a table of per-step medians for each rank (mpi::StepTimes: host time
// of every MPI step, recording, submit and fence wait of both submissions, their GPU timestamp time).
//   mpirun -np 2 build/bench/gpuscan_mpi_bench --n 268435456 --runs 20 --breakdown
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuscan/mpi.hpp"
#include "gpuscan/vulkan/testing.hpp"
#include "gpuscan_env.hpp"

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

// "name, PCI 0000:1b:00.0, UUID 0123..." of ctx's physical device (PCI where VK_EXT_pci_bus_info is there).
std::string device_identity(const Context& ctx) {
  const VkPhysicalDevice physical = ctx.physical_device();
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  const bool has_pci = std::any_of(extensions.begin(), extensions.end(), [](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0;
  });
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  if (has_pci) id.pNext = &pci;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
  vkGetPhysicalDeviceProperties2(physical, &props);
  char text[160];
  std::string out = ctx.device_info().name + " (device index " + std::to_string(ctx.device_info().index) + ")";
  if (has_pci) {
    std::snprintf(text, sizeof text, ", PCI %04x:%02x:%02x.%x", pci.pciDomain, pci.pciBus, pci.pciDevice,
                  pci.pciFunction);
    out += text;
  }
  out += ", UUID ";
  for (uint8_t b : id.deviceUUID) {
    std::snprintf(text, sizeof text, "%02x", b);
    out += text;
  }
  return out;
}

// Rank 0 prints one comment line per rank: its placement and device.
void print_devices(const Context& ctx, const mpi::Placement& placed, int rank, int ranks) {
  const char* env_local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const char* env_device = std::getenv("GPUSCAN_DEVICE");
  char line[512];
  std::snprintf(line, sizeof line, "# rank %d: local rank %d of %d (OMPI_COMM_WORLD_LOCAL_RANK=%s), placed on device %u, GPUSCAN_DEVICE=%s; runs on %s",
                rank, placed.local_rank, placed.local_size, env_local ? env_local : "unset", placed.device_index,
                env_device ? env_device : "unset", device_identity(ctx).c_str());
  std::vector<char> all(rank == 0 ? sizeof line * static_cast<size_t>(ranks) : 1);
  MPI_Gather(line, sizeof line, MPI_CHAR, all.data(), sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < ranks; ++r) std::printf("%s\n", all.data() + sizeof line * static_cast<size_t>(r));
}

// The breakdown's columns: mpi::StepTimes of the distributed scan, then testkit::SubmitTimes of the local scan alone.
constexpr const char* kBreakdownColumns =
    "total,scratch,reduce_record,reduce_submit,reduce_wait,reduce_gpu,exchange,scan_record,scan_submit,scan_wait,"
    "scan_gpu,agree,local_record,local_submit,local_wait,local_gpu";
constexpr size_t kBreakdownFields = 16;

std::vector<double> breakdown_row(const mpi::StepTimes& s, const testkit::SubmitTimes& l) {
  return {s.total,        s.scratch,     s.reduce.record, s.reduce.submit, s.reduce.wait, s.reduce.gpu,
          s.exchange,     s.scan.record, s.scan.submit,   s.scan.wait,     s.scan.gpu,    s.agree,
          l.record,       l.submit,      l.wait,          l.gpu};
}

// Every timed run of this rank: the run's slowest-rank wall times (distributed call, local scan alone),
// then this rank's breakdown columns.
void write_runs(const std::string& path, const std::vector<std::vector<double>>& rows,
                const std::vector<double>& distributed, const std::vector<double>& local) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fprintf(f, "run,slowest_ms,local_slowest_ms,%s\n", kBreakdownColumns);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::fprintf(f, "%zu,%.4f,%.4f", i, distributed[i], local[i]);
    for (double v : rows[i]) std::fprintf(f, ",%.4f", v);
    std::fprintf(f, "\n");
  }
  std::fclose(f);
}

// Rank 0 prints each rank's median of every breakdown column over the timed runs (rows: runs x fields).
void print_breakdown(const std::vector<std::vector<double>>& rows, int rank, int ranks) {
  std::vector<double> medians(kBreakdownFields);
  for (size_t f = 0; f < kBreakdownFields; ++f) {
    std::vector<double> column;
    for (const auto& row : rows) column.push_back(row[f]);
    medians[f] = median(column);
  }
  std::vector<double> all(rank == 0 ? kBreakdownFields * static_cast<size_t>(ranks) : 1);
  MPI_Gather(medians.data(), kBreakdownFields, MPI_DOUBLE, all.data(), kBreakdownFields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::printf("# breakdown: each rank's median per step over the timed runs, ms (docs/mpi.md)\nrank,%s\n",
              kBreakdownColumns);
  for (int r = 0; r < ranks; ++r) {
    std::printf("%d", r);
    for (size_t f = 0; f < kBreakdownFields; ++f) std::printf(",%.4f", all[static_cast<size_t>(r) * kBreakdownFields + f]);
    std::printf("\n");
  }
}

int run(int argc, char** argv) {
  uint64_t n = uint64_t{1} << 28;
  uint32_t runs = 20, warmup = 5;
  uint64_t seed = std::random_device{}();
  CLI::App app{"Weak scaling of gpuscan::mpi::exclusive_scan on GPU buffers (u32, add), n elements per rank"};
  app.add_option("--n", n, "u32 elements per rank (default 2^28)")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--runs", runs, "timed runs (default 20)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed runs first (default 5)");
  app.add_option("--seed", seed, "random data seed (rank r draws with seed + r)");
  bool breakdown = false;
  std::string breakdown_out;
  app.add_flag("--breakdown", breakdown, "also print each rank's median time per step (mpi::StepTimes)");
  app.add_option("--breakdown-out", breakdown_out,
                 "with --breakdown: each rank also writes every timed run's steps to PREFIX.rank<r>.csv");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  const mpi::Placement placed = mpi::place(MPI_COMM_WORLD);
  const Context ctx = mpi::create_context(MPI_COMM_WORLD, env::apply({}));  // GPUSCAN_DEVICE overrides the placement
  print_devices(ctx, placed, rank, ranks);
  const uint64_t bytes = n * sizeof(uint32_t);
  testkit::Buffer in(ctx, bytes, kUsage, testkit::Memory::device_local);
  testkit::Buffer out(ctx, bytes, kUsage, testkit::Memory::device_local);
  testkit::Buffer staging(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          testkit::Memory::host_readback);  // the check reads 4n bytes back

  // Random data, uploaded once; its host sum gives this rank's expected carry-in.
  std::vector<uint32_t> data(n);
  std::mt19937_64 rng(seed + static_cast<uint64_t>(rank));
  for (uint32_t& x : data) x = static_cast<uint32_t>(rng());
  std::memcpy(staging.mapped(), data.data(), bytes);
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    testkit::copy_with_barrier(ctx, cmd, staging.handle(), in.handle(), bytes, VK_PIPELINE_STAGE_HOST_BIT,
                               VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_ACCESS_SHADER_READ_BIT);
    vkCmdFillBuffer(cmd, out.handle(), 0, VK_WHOLE_SIZE, 0xA5A5A5A5u);  // poison: unwritten output fails
  });
  const mpi::DevicePiece piece{in.view(), out.view(), n};

  // Check once, before timing: this rank's piece against the CPU with the carry-in from the host sums.
  uint32_t local_sum = 0, carry = 0;
  for (uint32_t x : data) local_sum += x;
  MPI_Exscan(&local_sum, &carry, 1, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) carry = 0;
  mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, piece);
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {  // the call's last barrier covers this copy
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, out.handle(), staging.handle(), 1, &region);
    testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
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

  std::vector<mpi::StepTimes> steps;
  const std::vector<double> distributed = time_slowest(warmup, runs, [&] {
    mpi::StepTimes t;
    mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, piece, {}, breakdown ? &t : nullptr);
    steps.push_back(t);
  });

  // The local scan alone: record_scan of the same n, temp allocated once, no reduce and no MPI.
  const ScanConfig config;
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  testkit::Buffer temp(ctx, std::max<VkDeviceSize>(req.size, 4), req.usage, testkit::Memory::device_local);
  std::vector<testkit::SubmitTimes> local_steps;
  const std::vector<double> local = time_slowest(warmup, runs, [&] {
    testkit::SubmitTimes t;
    testkit::submit_and_wait(
        ctx,
        [&](VkCommandBuffer cmd) {
          testkit::memory_barrier(ctx,
              cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
          record_scan(ctx, cmd, {config, n, in.view(), out.view(), req.size ? temp.view() : BufferView{}});
        },
        breakdown ? &t : nullptr);
    local_steps.push_back(t);
  });

  if (rank == 0) {
    std::printf("# device of rank 0: %s; algorithm: %s\n", ctx.device_info().name.c_str(),
                std::string(to_string(ctx.resolve(config, n))).c_str());
    std::printf("ranks,n_per_rank,median_ms,min_ms,local_median_ms,local_min_ms,runs,mismatches\n");
    std::printf("%d,%llu,%.4f,%.4f,%.4f,%.4f,%u,%llu\n", ranks, static_cast<unsigned long long>(n),
                median(distributed), minimum(distributed), median(local), minimum(local), runs,
                static_cast<unsigned long long>(all_mismatches));
  }
  if (breakdown) {
    std::vector<std::vector<double>> rows;  // the timed runs only (both loops ran warmup + runs calls)
    for (size_t i = warmup; i < steps.size(); ++i) rows.push_back(breakdown_row(steps[i], local_steps[i]));
    print_breakdown(rows, rank, ranks);
    if (!breakdown_out.empty()) write_runs(breakdown_out + ".rank" + std::to_string(rank) + ".csv", rows, distributed, local);
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
