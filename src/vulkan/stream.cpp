// Chunked streams on Vulkan (include/gpuscan/stream.hpp): one or two "slots", each a set of buffers
// (host-visible staging, device input, output, temp), a command pool, a fence and a timestamp pool,
// reused chunk after chunk. A chunk is read into a slot's staging buffer, copied up, scanned with the
// running total as carry-in, and copied back into the same staging buffer.
//
// A scan's carry for chunk i+1 is known only when chunk i is done, so the GPU runs one scan at a time;
// double buffering overlaps the host's side instead: while the GPU scans chunk i+1, the host hands
// chunk i's results to the writer and reads chunk i+2 into the slot chunk i used.
#include <array>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/scan_shape.hpp"
#include "core/stream.hpp"
#include "gpuscan/reference.hpp"
#include "gpuscan/vulkan/stream.hpp"
#include "vulkan/check.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan {
namespace {

constexpr VkPipelineStageFlags compute_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;

// One chunk's buffers and submission state. Destroying a slot whose submission is in flight waits for
// it; if it never finishes (or already timed out), everything the GPU may still use is handed to the
// Context, which frees it once the device is idle.
class Slot {
 public:
  Slot(const Context& ctx, VkDeviceSize chunk_bytes, VkDeviceSize result_bytes, const TempRequirements& temp)
      : ctx_(ctx) {
    const VkDevice device = ctx.device();
    constexpr VkBufferUsageFlags transfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | transfer | impl_of(ctx).address_usage();
    staging = vk::OwnedBuffer(ctx, chunk_bytes, transfer, vk::MemoryKind::host_visible);
    data = vk::OwnedBuffer(ctx, chunk_bytes, storage, vk::MemoryKind::device_local);
    result = vk::OwnedBuffer(ctx, result_bytes, storage, vk::MemoryKind::device_local);
    this->temp = vk::OwnedBuffer(ctx, temp.size, temp.usage, vk::MemoryKind::device_local);
    try {
      VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
      pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
      pool_info.queueFamilyIndex = ctx.queue_family_index();
      vk::check(fn().vkCreateCommandPool(device, &pool_info, nullptr, &pool_), "vkCreateCommandPool");
      VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      alloc.commandPool = pool_;
      alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      alloc.commandBufferCount = 1;
      vk::check(fn().vkAllocateCommandBuffers(device, &alloc, &cmd_), "vkAllocateCommandBuffers");
      VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
      vk::check(fn().vkCreateFence(device, &fence_info, nullptr, &fence_), "vkCreateFence");
      if (ctx.device_info().timestamp_period_ns > 0) {
        VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        q.queryType = VK_QUERY_TYPE_TIMESTAMP;
        q.queryCount = 2;
        vk::check(fn().vkCreateQueryPool(device, &q, nullptr, &queries_), "vkCreateQueryPool");
      }
    } catch (...) {
      destroy();
      throw;
    }
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  ~Slot() {
    if (in_flight_ && !abandoned_ &&
        fn().vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, impl_of(ctx_).timeout_ns) != VK_SUCCESS)
      abandoned_ = true;
    if (abandoned_) abandon();
    else destroy();
  }

  std::span<std::byte> staging_bytes() const {
    return {static_cast<std::byte*>(staging.mapped()), static_cast<size_t>(staging.size())};
  }

  // Records `work` between the upload of `upload_bytes` from staging to data and the download of
  // `download_bytes` from result to staging, with timestamps around `work`, and submits it.
  void submit(VkDeviceSize upload_bytes, VkDeviceSize download_bytes, const std::function<void(VkCommandBuffer)>& work) {
    const VkDevice device = ctx_.device();
    vk::check(fn().vkResetCommandPool(device, pool_, 0), "vkResetCommandPool");
    vk::check(fn().vkResetFences(device, 1, &fence_), "vkResetFences");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk::check(fn().vkBeginCommandBuffer(cmd_, &begin), "vkBeginCommandBuffer");
    // The previous chunk in this slot is done (its fence was waited on); this barrier states the order
    // of its accesses before this chunk's for the record, as record_scan's contract asks for temp.
    vk::memory_barrier(ctx_, cmd_, compute_stage | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                       compute_stage | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                           VK_ACCESS_TRANSFER_WRITE_BIT);
    vk::copy_with_barrier(ctx_, cmd_, staging.handle(), data.handle(), upload_bytes, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_WRITE_BIT, compute_stage, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (queries_) {
      fn().vkCmdResetQueryPool(cmd_, queries_, 0, 2);
      fn().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
    }
    work(cmd_);
    if (queries_) fn().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
    vk::copy_with_barrier(ctx_, cmd_, result.handle(), staging.handle(), download_bytes, compute_stage,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    vk::check(fn().vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    std::lock_guard lock(impl_of(ctx_).queue_mutex);
    vk::check(fn().vkQueueSubmit(ctx_.queue(), 1, &submit, fence_), "vkQueueSubmit");
    in_flight_ = true;
  }

  // Waits for the submission; returns the GPU time of `work` (0 without timestamps).
  double wait() {
    const VkResult waited = fn().vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, impl_of(ctx_).timeout_ns);
    if (waited == VK_TIMEOUT) {
      abandoned_ = true;
      throw VulkanError(Errc::timeout,
                        "the GPU did not finish a chunk of a stream within " +
                            std::to_string(impl_of(ctx_).timeout_ns / 1'000'000) +
                            " ms (a hang or a device lost); destroy this Context",
                        waited);
    }
    vk::check(waited, "vkWaitForFences");
    in_flight_ = false;
    if (!queries_) return 0;
    uint64_t stamps[2] = {0, 0};
    vk::check(fn().vkGetQueryPoolResults(ctx_.device(), queries_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
              "vkGetQueryPoolResults");
    return static_cast<double>(stamps[1] - stamps[0]) * ctx_.device_info().timestamp_period_ns;
  }

  vk::OwnedBuffer staging, data, result, temp;
  uint64_t count = 0;       // elements of the chunk in this slot
  uint64_t last_input = 0;  // the bits of its last input element (exclusive scans' running total)

 private:
  void destroy() noexcept {
    const VkDevice device = ctx_.device();
    if (queries_) fn().vkDestroyQueryPool(device, queries_, nullptr);
    if (fence_) fn().vkDestroyFence(device, fence_, nullptr);
    if (pool_) fn().vkDestroyCommandPool(device, pool_, nullptr);
  }
  void abandon() noexcept {
    Context::Impl& impl = impl_of(ctx_);
    std::lock_guard lock(impl.abandoned_mutex);
    impl.abandoned.emplace_back(pool_, fence_);
    for (vk::OwnedBuffer* b : {&staging, &data, &result, &temp}) impl.abandoned_buffers.push_back(std::move(*b));
    if (queries_) impl.abandoned_queries.push_back(queries_);
  }

  const vk::Functions& fn() const noexcept { return impl_of(ctx_).fn; }

  const Context& ctx_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  bool in_flight_ = false;
  bool abandoned_ = false;
};

// The elements per chunk no larger than one binding allows (and well within the shaders' 32-bit indices).
uint64_t binding_cap(const Context& ctx, DataType type) {
  return std::min<uint64_t>(ctx.device_info().max_storage_buffer_range / element_size(type), uint64_t{1} << 31);
}

// Shrinks a plan's chunk to the stream's known length (options.size_hint).
uint64_t hinted_chunk(uint64_t chunk, const StreamOptions& options, DataType type) {
  if (!options.size_hint) return chunk;
  const uint64_t esize = element_size(type);
  return std::min(chunk, std::max<uint64_t>(1, (*options.size_hint + esize - 1) / esize));
}

// A scan stream's plan, with the configuration every chunk runs (the algorithm pinned to what a full
// chunk resolves to, so that a short last chunk needs no more temp than the slot has).
struct ScanStreamPlan {
  StreamPlan plan;
  ScanConfig chunk_config;
  TempRequirements temp;
};

ScanStreamPlan plan_scan(const Context& ctx, const ScanConfig& config, const StreamOptions& options) {
  if (config.custom_op)  // chunks chain through carry-ins, which custom operators do not take
    throw Error(Errc::unsupported, "streamed scans take no custom operator (ScanConfig::custom_op); use scan_bytes");
  scan_temp_requirements(ctx, 1, config);  // validates the type, operator, tile shape and an explicit algorithm
  const uint64_t esize = element_size(config.type);
  const uint64_t cap = binding_cap(ctx, config.type);
  const auto pinned = [&](uint64_t n) {
    ScanConfig c = config;
    c.algorithm = ctx.resolve(config, n);
    return c;
  };
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(ctx.device_info()),
                       element_size(config.type));
  const uint64_t tile = pinned(cap).algorithm == Algorithm::multipass
                            ? 2 * uint64_t{shape.workgroup_size}
                            : uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4;
  const uint32_t in_flight = core::chunks_in_flight(options);
  uint64_t chunk = core::chunk_elements_for_budget(
      core::stream_budget(options), in_flight, 3 * esize,  // staging, input, output
      [&](uint64_t n) { return scan_temp_requirements(ctx, n, pinned(n)).size; }, tile, cap,
      "a " + std::string(to_string(config.type)) + " scan");
  chunk = hinted_chunk(chunk, options, config.type);
  ScanStreamPlan p;
  p.chunk_config = pinned(chunk);
  p.temp = scan_temp_requirements(ctx, chunk, p.chunk_config);
  p.plan.chunk_elements = chunk;
  p.plan.chunks_in_flight = in_flight;
  p.plan.memory_bytes = in_flight * (3 * esize * chunk + p.temp.size);
  p.plan.algorithm = p.chunk_config.algorithm;
  return p;
}

struct ReduceStreamPlan {
  StreamPlan plan;
  TempRequirements temp;
};

ReduceStreamPlan plan_reduce(const Context& ctx, const ReduceConfig& config, const StreamOptions& options) {
  reduce_temp_requirements(ctx, 1, config);  // validates
  const uint64_t esize = element_size(config.type);
  const core::TileShape shape =
      core::tile_shape(config.workgroup_size, config.vectors_per_lane, core::workgroup_limits(ctx.device_info()),
                       element_size(config.type));
  const uint32_t in_flight = core::chunks_in_flight(options);
  uint64_t chunk = core::chunk_elements_for_budget(
      core::stream_budget(options), in_flight, 2 * esize,  // staging, input
      [&](uint64_t n) { return reduce_temp_requirements(ctx, n, config).size + esize; },  // + the result
      uint64_t{shape.workgroup_size} * shape.vectors_per_lane * 4, binding_cap(ctx, config.type),
      "a " + std::string(to_string(config.type)) + " reduction");
  chunk = hinted_chunk(chunk, options, config.type);
  ReduceStreamPlan p;
  p.temp = reduce_temp_requirements(ctx, chunk, config);
  p.plan.chunk_elements = chunk;
  p.plan.chunks_in_flight = in_flight;
  p.plan.memory_bytes = in_flight * (2 * esize * chunk + p.temp.size + esize);
  p.plan.algorithm = Algorithm::automatic;  // reductions have one algorithm
  return p;
}

// Reads the next chunk into `slot`'s staging buffer.
void fill(Slot& slot, core::ChunkFiller& filler, uint64_t chunk_bytes, DataType type) {
  slot.count = filler.fill(slot.staging_bytes().first(chunk_bytes)) / element_size(type);
  if (slot.count) slot.last_input = core::element_bits_at(slot.staging_bytes(), type, slot.count - 1);
}

// Runs every chunk of `filler` through submit -> finish -> drain in one slot, or in two (slot(0), slot(1)),
// reading the next chunk while the GPU works on this one. A `chained` chunk (a scan's: its carry-in is the
// previous chunk's result) is submitted only after the previous one finished; an unchained one (a
// reduction's) at once, so two run on the GPU together. drain() runs while the next chunk is on the GPU.
template <class SlotOf, class Submit, class Finish, class Drain>
void drive_chunks(core::ChunkFiller& filler, uint32_t chunks_in_flight, bool chained, uint64_t chunk_bytes,
                  DataType type, SlotOf slot, Submit submit, Finish finish, Drain drain) {
  if (chunks_in_flight == 1) {
    Slot& s = slot(0);
    while (!filler.ended()) {
      fill(s, filler, chunk_bytes, type);
      if (!s.count) break;
      submit(s);
      finish(s);
      drain(s);
    }
    return;
  }
  size_t cur = 0;
  fill(slot(cur), filler, chunk_bytes, type);
  if (!slot(cur).count) return;
  submit(slot(cur));
  while (true) {
    Slot* next = nullptr;
    if (!filler.ended()) {
      next = &slot(1 - cur);
      fill(*next, filler, chunk_bytes, type);
      if (!next->count) next = nullptr;
      else if (!chained) submit(*next);
    }
    finish(slot(cur));
    if (next && chained) submit(*next);  // its carry is known now; the GPU is busy again ...
    drain(slot(cur));                     // ... while the host writes this chunk's results
    if (!next) break;
    cur = 1 - cur;
  }
}

}  // namespace

StreamPlan plan_scan_stream(const Context& ctx, const ScanConfig& config, const StreamOptions& options) {
  return plan_scan(ctx, config, options).plan;
}

StreamPlan plan_reduce_stream(const Context& ctx, const ReduceConfig& config, const StreamOptions& options) {
  return plan_reduce(ctx, config, options).plan;
}

StreamStats scan_stream(const Context& ctx, const ScanConfig& config, const StreamReader& read, const StreamWriter& write,
                        const StreamOptions& options, std::optional<uint64_t> initial_bits) {
  const ScanStreamPlan p = plan_scan(ctx, config, options);
  StreamStats stats;
  static_cast<StreamPlan&>(stats) = p.plan;
  const DataType type = config.type;
  const uint64_t esize = element_size(type);
  const uint64_t chunk_bytes = p.plan.chunk_elements * esize;
  core::ChunkFiller filler(read, type);
  core::RunningTotal total(config, initial_bits);
  std::array<std::unique_ptr<Slot>, 2> slots;  // the second only once a second chunk exists
  const auto slot = [&](size_t i) -> Slot& {
    if (!slots[i]) slots[i] = std::make_unique<Slot>(ctx, chunk_bytes, chunk_bytes, p.temp);
    return *slots[i];
  };
  const auto submit = [&](Slot& s) {
    const VkDeviceSize bytes = s.count * esize;
    s.submit(bytes, bytes, [&](VkCommandBuffer cmd) {
      ScanArgs args{p.chunk_config, s.count, s.data.view(), s.result.view(), s.temp.view()};
      args.initial_bits = total.carry();
      record_scan(ctx, cmd, args);
    });
  };
  const auto finish = [&](Slot& s) {
    stats.gpu_ns += s.wait();
    total.advance(core::element_bits_at(s.staging_bytes(), type, s.count - 1), s.last_input);
  };
  const auto drain = [&](Slot& s) {
    write(s.staging_bytes().first(s.count * esize));
    stats.count += s.count;
    ++stats.chunks;
  };

  drive_chunks(filler, p.plan.chunks_in_flight, true, chunk_bytes, type, slot, submit, finish, drain);
  return stats;
}

std::vector<std::byte> reduce_stream(const Context& ctx, const ReduceConfig& config, const StreamReader& read,
                                     const StreamOptions& options, StreamStats* stats_out) {
  const ReduceStreamPlan p = plan_reduce(ctx, config, options);
  StreamStats stats;
  static_cast<StreamPlan&>(stats) = p.plan;
  const DataType type = config.type;
  const uint64_t esize = element_size(type);
  const uint64_t chunk_bytes = p.plan.chunk_elements * esize;
  core::ChunkFiller filler(read, type);
  std::optional<uint64_t> total;  // the chunk totals so far, combined left to right
  std::array<std::unique_ptr<Slot>, 2> slots;
  const auto slot = [&](size_t i) -> Slot& {
    if (!slots[i]) slots[i] = std::make_unique<Slot>(ctx, chunk_bytes, esize, p.temp);
    return *slots[i];
  };
  const auto submit = [&](Slot& s) {
    s.submit(s.count * esize, esize, [&](VkCommandBuffer cmd) {
      record_reduce(ctx, cmd, {config, s.count, s.data.view(), s.result.view(), s.temp.view()});
    });
  };
  const auto finish = [&](Slot& s) {
    stats.gpu_ns += s.wait();
    const uint64_t chunk_total = core::element_bits_at(s.staging_bytes(), type, 0);
    total = total ? core::combine_bits(type, config.op, *total, chunk_total) : chunk_total;
    stats.count += s.count;
    ++stats.chunks;
  };

  drive_chunks(filler, p.plan.chunks_in_flight, false, chunk_bytes, type, slot, submit, finish, [](Slot&) {});
  if (stats_out) *stats_out = stats;
  std::vector<std::byte> out(esize);
  if (!total)  // nothing streamed: the operator's identity
    visit_type(type, [&](auto tag) { total = element_bits(cpu::identity<decltype(tag)>(config.op)); });
  std::memcpy(out.data(), &*total, esize);
  return out;
}

}  // namespace gpuscan
