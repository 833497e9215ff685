// Segmented scans recorded on poisoned, guarded buffers (tests/gpu/segmented_test.cpp,
// segmented_window_test.cpp).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "gpuscan/segmented.hpp"
#include "scan_check.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::test {

struct Placement {
  size_t in_offset = 0;     // elements
  size_t heads_offset = 0;  // heads units
  size_t guard = 36;        // output guard elements (36 keeps vectors aligned, 37 does not)
  bool in_place = false;
};

// A count in GPU memory (SegmentedScanArgs::count_from): a u32, or with is_64bit a u64; `status`
// receives the status word the scan wrote (poisoned before it runs).
struct GpuCount {
  uint64_t value = 0;
  bool is_64bit = false;
  uint32_t status = 0;
};

// Records a segmented scan on poisoned, guarded buffers and returns the output (and whether the guards
// held). With `from`, the scan takes its count from GPU memory, input.size() being the bound; the
// output past the count is returned as the scan left it (poisoned where untouched).
template <class T>
RecordedScan<T> record_segmented(const Context& ctx, const std::vector<T>& input, const std::vector<std::byte>& heads,
                                 SegmentHeads kind, ScanConfig config, Placement at = {}, GpuCount* from = nullptr) {
  config.type = data_type_of<T>::value;
  const size_t n = input.size();
  const size_t unit = kind == SegmentHeads::keys_u64 ? 8 : 4;
  HostBuffer<T> in(ctx, (at.in_offset + n + 1) * sizeof(T));
  HostBuffer<T> out(ctx, (n + 2 * at.guard) * sizeof(T));
  HostBuffer<std::byte> head_buffer(ctx, at.heads_offset * unit + heads.size() + 4);
  const TempRequirements req = segmented_scan_temp_requirements(ctx, n, config, from != nullptr);
  HostBuffer<std::byte> temp(ctx, req.size + 64, req.usage);
  HostBuffer<uint32_t> count(ctx, 16);  // the count (u64: then its high word), then the status word
  if (from) {
    count.data()[0] = static_cast<uint32_t>(from->value);
    count.data()[1] = static_cast<uint32_t>(from->value >> 32);
    count.data()[2] = 0xA5A5A5A5u;
  }
  if (n) std::memcpy(in.data() + at.in_offset, input.data(), n * sizeof(T));
  if (!heads.empty()) std::memcpy(head_buffer.data() + at.heads_offset * unit, heads.data(), heads.size());
  poison(out.data(), (n + 2 * at.guard) * sizeof(T));
  poison(temp.data(), req.size + 64);
  const std::vector<T> before(out.data(), out.data() + n + 2 * at.guard);
  if (at.in_place && n) std::memcpy(out.data() + at.guard, input.data(), n * sizeof(T));

  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    SegmentedScanArgs args;
    args.config = config;
    args.heads_kind = kind;
    args.count = n;
    args.output = out.view(at.guard * sizeof(T));
    args.input = at.in_place ? args.output : in.view(at.in_offset * sizeof(T));
    args.heads = head_buffer.view(at.heads_offset * unit);
    args.temp = temp.view();
    if (from) args.count_from = IndirectCount{count.view(), from->is_64bit, count.view(8)};
    record_segmented_scan(ctx, cmd, args);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  if (from) from->status = count.data()[2];
  RecordedScan<T> r;
  r.output.assign(out.data() + at.guard, out.data() + at.guard + n);
  for (size_t i = 0; i < at.guard; ++i) {
    const size_t j = at.guard + n + i;
    if (std::memcmp(&out.data()[i], &before[i], sizeof(T)) || std::memcmp(&out.data()[j], &before[j], sizeof(T)))
      r.guards_intact = false;
  }
  return r;
}

// Records `a` (on a null command buffer with null_cmd) and expects gpuscan::Error `code` with `fragment`
// in its message, before anything is recorded.
inline void expect_segmented_error(const Context& ctx, const SegmentedScanArgs& a, Errc code,
                                   const std::string& fragment, bool null_cmd = false) {
  expect_recording_error(
      ctx, [&](VkCommandBuffer cmd) { record_segmented_scan(ctx, null_cmd ? VK_NULL_HANDLE : cmd, a); }, code, fragment);
}

}  // namespace gpuscan::test
