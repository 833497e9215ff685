// The single-pass scan from input and output offsets off vector alignment (the kernels' scalar load and
// store paths) and through buffer device addresses, one window and many, against the CPU reference.
// An earlier kernel gave whole tiles wrong prefixes on NVIDIA in exactly these cases whenever a
// workgroup held more than one subgroup (docs/scan.md, "Offsets"), so the shapes cover one and several
// subgroups per workgroup and several tiles per workgroup. GPUSCAN_OFFSETS_REPEATS repeats every case
// (1 by default; the H200 run uses 3).
#include <cstdlib>

#include "scan_check.hpp"

namespace gpuscan::test {
namespace {

uint32_t repeats() {
  const char* e = std::getenv("GPUSCAN_OFFSETS_REPEATS");
  return e ? std::max(1u, static_cast<uint32_t>(std::strtoul(e, nullptr, 10))) : 1u;
}

// Scans `input` from element `in_off` of one buffer into element `out_off` of another, both poisoned
// around the range, and returns how many output elements differ from the reference (the guards count
// as wrong elements too).
template <class T>
size_t wrong_elements(const Context& ctx, const std::vector<T>& input, const ScanConfig& config, size_t in_off,
                      size_t out_off, VkBufferUsageFlags usage, std::optional<T> initial) {
  const size_t n = input.size(), guard = 5;
  HostBuffer<T> in(ctx, (in_off + n) * sizeof(T), usage);
  HostBuffer<T> out(ctx, (out_off + n + guard) * sizeof(T), usage);
  const TempRequirements req = scan_temp_requirements(ctx, n, config);
  HostBuffer<uint8_t> temp(ctx, req.size, req.usage);
  std::memcpy(in.data() + in_off, input.data(), n * sizeof(T));
  poison(out.data(), (out_off + n + guard) * sizeof(T));
  poison(temp.data(), req.size);
  const std::vector<T> before(out.data(), out.data() + out_off + n + guard);
  ScanArgs args{config, n, in.view(in_off * sizeof(T)), out.view(out_off * sizeof(T)), temp.view()};
  if (initial) args.initial_bits = element_bits(*initial);
  run_scan(ctx, args);
  const std::vector<T> want = cpu::scan<T>(std::span<const T>(input), config.kind, config.op, initial);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += out.data()[out_off + i] != want[i];
  for (size_t i = 0; i < out_off; ++i) wrong += std::memcmp(&out.data()[i], &before[i], sizeof(T)) != 0;
  for (size_t i = out_off + n; i < out_off + n + guard; ++i)
    wrong += std::memcmp(&out.data()[i], &before[i], sizeof(T)) != 0;
  return wrong;
}

// Every shape (W 32/64/256 within the device's limits, K 1/4) with three offset pairs and both kinds,
// each with one tile per workgroup or four and with or without a carry-in at random; u32 sums and u64
// maxima in turn. Exact integer
// arithmetic, so any wrong prefix shows.
void check_offsets(const Context& ctx, VkBufferUsageFlags usage) {
  if (!ctx.single_pass_available()) GTEST_SKIP() << "this context cannot run single-pass scans";
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const uint32_t max_w = ctx.device_info().max_workgroup_invocations;
  const uint32_t min_w = std::max(32u, ctx.device_info().max_subgroup_size);
  size_t cases = 0;
  for (uint32_t rep = 0; rep < repeats(); ++rep)
    for (uint32_t w : {32u, 64u, 256u}) {
      if (w < min_w || w > max_w) continue;
      for (uint32_t k : {1u, 4u})
        for (auto [in_off, out_off] : {std::pair<size_t, size_t>{1, 0}, {0, 3}, {3, 5}})
          for (ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
            const uint32_t tiles_per_workgroup = rng() % 2 ? 1u : 4u;
            ScanConfig c;
            c.algorithm = Algorithm::single_pass;
            c.workgroup_size = w;
            c.vectors_per_lane = k;
            c.tiles_per_workgroup = tiles_per_workgroup;
            c.kind = kind;
            const size_t n = size_t{w} * k * 4 * 9 + rng() % 7;  // nine tiles and part of a tenth
            const bool carry = rng() % 2;
            const std::string what = "W " + std::to_string(w) + " K " + std::to_string(k) + " tiles/workgroup " +
                                     std::to_string(tiles_per_workgroup) + " in+" + std::to_string(in_off) +
                                     " out+" + std::to_string(out_off) + " " + std::string(to_string(kind)) +
                                     (carry ? " carry-in" : "") + ", n = " + std::to_string(n) + ", seed " +
                                     std::to_string(seed);
            ++cases;
            if (cases % 2) {
              c.type = DataType::u32;
              const auto input = random_values<uint32_t>(n, rng);
              std::optional<uint32_t> initial;
              if (carry) initial = static_cast<uint32_t>(rng());
              EXPECT_EQ(wrong_elements(ctx, input, c, in_off, out_off, usage, initial), 0u) << "u32 add, " << what;
            } else {
              c.type = DataType::u64;
              c.op = Op::max;
              const auto input = random_values<uint64_t>(n, rng);
              std::optional<uint64_t> initial;
              if (carry) initial = rng() >> 1;
              EXPECT_EQ(wrong_elements(ctx, input, c, in_off, out_off, usage, initial), 0u) << "u64 max, " << what;
            }
          }
    }
  EXPECT_GT(cases, 0u);
}

class SinglePassOffsetsTest : public GpuTest {};

TEST_F(SinglePassOffsetsTest, Bindings) { check_offsets(shared_context(), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT); }

TEST_F(SinglePassOffsetsTest, DeviceAddresses) {
  if (!shared_context().device_address_available()) GTEST_SKIP() << "no bufferDeviceAddress on this device";
  check_offsets(context_with(Addressing::device_address), addressable);
}

// Windows of 16 Ki 4-byte elements (8 Ki of 8 bytes): every case spans several, chained with the carry.
TEST_F(SinglePassOffsetsTest, DeviceAddressesInWindows) {
  if (!shared_context().device_address_available()) GTEST_SKIP() << "no bufferDeviceAddress on this device";
  const Context& ctx = cached_context("device-address-windows-64k", [] {
    ContextCreateInfo info;
    info.addressing = Addressing::device_address;
    TestHooks hooks;
    hooks.max_binding_bytes = 1 << 16;
    return make_validated_context(info, hooks);
  });
  check_offsets(ctx, addressable);
}

}  // namespace
}  // namespace gpuscan::test
