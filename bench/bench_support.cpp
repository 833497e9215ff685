#include "bench_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "bench_kernels.hpp"  // generated (bench/CMakeLists.txt)

namespace gpuscan::bench {

double g_warmup_ms = 200;  // set_warmup_ms

namespace {

void check(VkResult result, const char* what) {
  if (result != VK_SUCCESS)
    throw VulkanError(Errc::vulkan_error, std::string(what) + " failed: " + vk_result_name(result), result);
}

}  // namespace

void set_warmup_ms(const Context& ctx, double requested) {
  g_warmup_ms = requested >= 0 ? requested : default_warmup_ms(ctx.device_info().type == VK_PHYSICAL_DEVICE_TYPE_CPU);
}

std::vector<double> time_runs_once(const Context& ctx, uint32_t warmup, uint32_t runs,
                                   const std::function<void(VkCommandBuffer)>& record) {
  const VkDevice device = ctx.device();
  VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  q.queryType = VK_QUERY_TYPE_TIMESTAMP;
  q.queryCount = 2 * runs;
  VkQueryPool pool;
  check(vkCreateQueryPool(device, &q, nullptr, &pool), "vkCreateQueryPool");
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    vkCmdResetQueryPool(cmd, pool, 0, 2 * runs);
    const VkMemoryBarrier between{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr,
                                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    for (uint32_t i = 0; i < warmup + runs; ++i) {
      const bool timed = i >= warmup;
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 2 * (i - warmup));
      record(cmd);
      if (timed) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * (i - warmup) + 1);
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &between, 0,
                           nullptr, 0, nullptr);
    }
  });
  std::vector<uint64_t> stamps(2 * runs);
  check(vkGetQueryPoolResults(device, pool, 0, 2 * runs, stamps.size() * 8, stamps.data(), 8,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  vkDestroyQueryPool(device, pool, nullptr);
  std::vector<double> ms(runs);
  for (uint32_t i = 0; i < runs; ++i)
    ms[i] = static_cast<double>(stamps[2 * i + 1] - stamps[2 * i]) * ctx.device_info().timestamp_period_ns * 1e-6;
  return ms;
}

std::vector<double> time_runs(const Context& ctx, uint32_t warmup, uint32_t runs,
                              const std::function<void(VkCommandBuffer)>& record) {
  const double warmup_ms = BatchWarmup::ms(g_warmup_ms);
  std::vector<double> ms = warmed_up_runs(
      [&](uint32_t w, uint32_t r) { return time_runs_once(ctx, w, r, record); }, warmup, runs, warmup_ms);
  BatchWarmup::batch_ended();
  return ms;
}

void add_bench_modules(const Context& ctx) {
  for (const SpirvKernel& k : spirv_kernels) testkit::add_kernel(ctx, k.name, k.words);
}

void record_copy(const Context& ctx, VkCommandBuffer cmd, const Buffers& b, uint64_t n, uint32_t w, uint32_t k,
                 uint32_t element_bytes) {
  add_bench_modules(ctx);
  const uint64_t tile = uint64_t{w} * k * 4, e = element_bytes;
  const char* kernel = e == 8 ? "copy.u64" : "copy.u32";
  // Ranges longer than one binding are copied window by window, as the scans run (independent
  // dispatches, no barrier between them); a window is a whole number of tiles.
  const uint64_t window = testkit::window_elements(ctx, element_bytes) / tile * tile;
  for (uint64_t start = 0; start < n; start += window) {
    const uint64_t len = std::min(window, n - start);
    const uint64_t blocks = (len + tile - 1) / tile;
    const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(blocks, ctx.device_info().max_workgroup_count[0]));
    const uint32_t gy = static_cast<uint32_t>((blocks + gx - 1) / gx);
    const VkDescriptorBufferInfo in{b.in.handle(), start * e, len * e}, out{b.out.handle(), start * e, len * e};
    const VkDescriptorBufferInfo infos[4] = {in, out, out, in};
    const uint32_t params[6] = {static_cast<uint32_t>(len), 0, 0, 0, gx, static_cast<uint32_t>(blocks)};
    testkit::record_kernel(ctx, cmd, kernel, {.workgroup_size = w, .vectors_per_lane = k}, infos, params, gx, gy);
  }
}

const void* read_back(const Context& ctx, const Buffers& b, VkBuffer src, uint64_t bytes) {
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    testkit::copy_with_barrier(ctx, cmd, src, b.staging.handle(), bytes, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  return b.staging.mapped();
}

void upload(const Context& ctx, const Buffers& b, VkBuffer dst, const void* data, uint64_t bytes) {
  std::memcpy(b.staging.mapped(), data, bytes);
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    testkit::copy_with_barrier(ctx, cmd, b.staging.handle(), dst, bytes, VK_PIPELINE_STAGE_HOST_BIT,
                               VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  });
}

namespace {

void fill(const Context& ctx, VkBuffer buffer, VkDeviceSize bytes, uint32_t word) {
  testkit::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, buffer, 0, bytes, word);
    testkit::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  });
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double v) {
  std::ostringstream o;
  o.precision(6);
  o << v;
  return o.str();
}

}  // namespace

void poison(const Context& ctx, VkBuffer buffer, uint64_t bytes) { fill(ctx, buffer, bytes, 0xA5A5A5A5u); }

void zero(const Context& ctx, VkBuffer buffer) { fill(ctx, buffer, VK_WHOLE_SIZE, 0); }

Sink::Sink(std::ostream& csv, std::string json_path) : csv_(csv), json_path_(std::move(json_path)) {}

void Sink::metadata(const std::string& key, const std::string& value) {
  csv_ << "# " << key << ": " << value << "\n";
  metadata_.emplace_back(key, value);
}

void Sink::row(const Row& r) {
  if (!header_written_) {
    csv_ << "impl,algorithm,type,kind,n,median_ms,min_ms,max_ms,runs,gbps\n";
    header_written_ = true;
  }
  const std::string median = number(r.stats.median_ms), lo = number(r.stats.min_ms), hi = number(r.stats.max_ms),
                    gbps = number(r.gbps());
  csv_ << r.impl << "," << r.algorithm << "," << r.type << "," << r.kind << "," << r.n << "," << median << "," << lo
       << "," << hi << "," << r.runs << "," << gbps << "\n"
       << std::flush;
  if (json_path_.empty()) return;
  json_rows_.push_back("{\"impl\": " + json_string(r.impl) + ", \"algorithm\": " + json_string(r.algorithm) +
                       ", \"type\": " + json_string(r.type) + ", \"kind\": " + json_string(r.kind) +
                       ", \"n\": " + std::to_string(r.n) + ", \"median_ms\": " + median + ", \"min_ms\": " + lo +
                       ", \"max_ms\": " + hi + ", \"runs\": " + std::to_string(r.runs) + ", \"gbps\": " + gbps + "}");
}

void Sink::note(const std::string& line) {
  csv_ << "# " << line << "\n" << std::flush;
  notes_.push_back(line);
}

void Sink::finish() {
  if (json_path_.empty()) return;
  std::ofstream json(json_path_);
  json << "{\n  \"metadata\": {";
  for (size_t i = 0; i < metadata_.size(); ++i)
    json << (i ? ",\n    " : "\n    ") << json_string(metadata_[i].first) << ": " << json_string(metadata_[i].second);
  json << (metadata_.empty() ? "},\n" : "\n  },\n") << "  \"notes\": [";
  for (size_t i = 0; i < notes_.size(); ++i) json << (i ? ", " : "") << json_string(notes_[i]);
  json << "],\n  \"rows\": [";
  for (size_t i = 0; i < json_rows_.size(); ++i) json << (i ? ",\n    " : "\n    ") << json_rows_[i];
  json << (json_rows_.empty() ? "]\n}\n" : "\n  ]\n}\n");
  if (!json.good()) throw Error(Errc::io_error, "cannot write " + json_path_);
}

}  // namespace gpuscan::bench
