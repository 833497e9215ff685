// The Vulkan LSD radix sort (gpuscan/vulkan/sort.hpp; Plan<primitive::Sort>'s part, vulkan/sort.hpp, with the
// free calls over that plan): the checks, the layout and the device's choices;
// core::sort_program says what is recorded: per pass, each tile's digit counts (shaders/sort_upsweep.comp),
// their exclusive scan in digit-major order (the scan's program), and the stable scatter
// (shaders/sort_downsweep.comp), ping-ponging between the caller's output and temp.
//
// SortAlgorithm::onesweep instead: every pass's digit counts at once (shaders/sort_histogram.comp), their
// scan, then per pass one dispatch of shaders/sort_onesweep.comp, whose tiles look back over the tile
// states, cleared before each pass.
//
// Temp as src/core/sort_plan.hpp lays it out, record_scan's temp in the count scan's place.
// Bindings of the kernels: 0 keys in, 1 keys out, 2 digit counts (onesweep: the counts and the states, as
// 64-bit words), 3 values in, 4 values out, 5 the indirect count's words.
//
// With a count in GPU memory (SortArgs::count_from) everything is sized and dispatched for the upper bound;
// one indirect_count dispatch first clamps the count and writes the status word, as for a scan, and the
// kernels read the count from its words (sort_count(), shaders/common/radix_key.glsl): tiles past it count
// no digit and write nothing, so the scans over every tile's counts stay right.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "core/indirect.hpp"
#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "core/sort_plan.hpp"
#include "core/sort_policy.hpp"
#include "gpuscan/vulkan/scan.hpp"
#include "gpuscan/vulkan/plan.hpp"
#include "gpuscan/vulkan/sort.hpp"
#include "vulkan/buffer_checks.hpp"
#include "vulkan/context_impl.hpp"
#include "vulkan/execute.hpp"
#include "vulkan/scan_program.hpp"
#include "vulkan/indirect.hpp"
#include "vulkan/sort.hpp"
#include "vulkan/sort_stages.hpp"

namespace gpuscan {
namespace {

using core::check_sort_values;
using Shape = core::SortShape;

Shape shape_for(const Context& ctx, const SortConfig& config) {
  const DeviceInfo& info = ctx.device_info();
  if (!info.has_subgroup_ballot())
    throw Error(Errc::unsupported, "the radix sort ranks keys with subgroup ballots, which this device does not "
                                   "offer in compute shaders (VK_SUBGROUP_FEATURE_BALLOT_BIT)");
  const core::WorkgroupLimits limits = core::workgroup_limits(info);
  return core::sort_shape({std::max<uint32_t>(info.min_subgroup_size, 1), core::min_workgroup_size(limits),
                           info.max_workgroup_invocations, info.max_shared_memory_bytes},
                          config);
}

ScanConfig counts_scan_config(const Context& ctx) {
  ScanConfig c;
  c.type = DataType::u32;
  c.kind = ScanKind::exclusive;
  // Both run without any workgroup waiting for another.
  c.algorithm = impl_of(ctx).subgroup_arithmetic_for(DataType::u32) ? Algorithm::reduce_then_scan : Algorithm::multipass;
  return c;
}

bool use_onesweep(const Context& ctx, const SortConfig& config) {
  if (core::choose_sort(*impl_of(ctx).profile, config.algorithm) != SortAlgorithm::onesweep) return false;
  if (!impl_of(ctx).single_pass_enabled)
    throw Error(Errc::unsupported, "the Onesweep sort needs 64-bit buffer atomics (Vulkan 1.2 with "
                                   "shaderBufferInt64Atomics), which this device or Context lacks; use "
                                   "SortAlgorithm::multipass");
  return true;
}

// The keys (and values) one binding holds; past that, the multipass sort reaches them through device
// addresses (the ".bda" kernels).
uint64_t binding_fit(const Context& ctx, const SortConfig& config) {
  const Context::Impl& impl = impl_of(ctx);
  const uint32_t vbytes = config.value_bytes;
  return std::min(impl.window_elements(element_size(config.key_type)),
                  vbytes ? impl.window_elements(vbytes) : UINT64_MAX);
}

// Whether record_passes reaches the caller's arrays and temp's copies through device addresses: where
// Addressing::device_address asks for it, or where they do not fit one binding (layout_for has checked
// that the Context can). Either way every buffer the kernels read or write needs the usage.
bool use_device_address(const Context& ctx, uint64_t count, uint64_t fit, bool onesweep) {
  const Context::Impl& impl = impl_of(ctx);
  if (count == 0 || impl.addressing == Addressing::bindings) return false;
  if (impl.addressing == Addressing::device_address) {
    if (onesweep)
      throw Error(Errc::unsupported, "the Onesweep sort runs with bindings only, not Addressing::device_address; "
                                     "use SortAlgorithm::multipass");
    return true;
  }
  return count > fit;
}

struct Layout : core::SortLayout {
  bool device_address = false;  // keys and values through device addresses (use_device_address)
  TempRequirements scan_req;
};

// `count`: the keys, or with `indirect` (a count from GPU memory) their upper bound.
Layout layout_for(const Context& ctx, uint64_t count, const SortConfig& config, bool indirect) {
  Layout l;
  l.bits = core::sort_bit_range(config);
  l.passes = core::sort_pass_count(l.bits);
  l.shape = shape_for(ctx, config);
  l.onesweep = use_onesweep(ctx, config);
  const uint32_t kbytes = element_size(config.key_type), vbytes = config.value_bytes;
  const Context::Impl& impl = impl_of(ctx);
  core::check_sort_positions(count);
  const uint64_t fit = binding_fit(ctx, config);
  if (count > fit) {
    const std::string what = std::to_string(count) + " keys of " + std::to_string(kbytes) + " bytes" +
                             (vbytes ? " with " + std::to_string(vbytes) + "-byte values" : std::string()) +
                             " do not fit one binding (at most " + std::to_string(fit) +
                             " here, maxStorageBufferRange)";
    if (!impl.device_address_enabled || impl.addressing == Addressing::bindings)
      throw Error(Errc::too_large, what + ", and this Context " +
                                       (impl.device_address_enabled ? "uses bindings only (Addressing::bindings)"
                                                                    : "has no bufferDeviceAddress") +
                                       ": the sort reaches longer arrays through device addresses only");
    if (l.onesweep)
      throw Error(Errc::too_large, what + ": the Onesweep sort binds its keys whole; SortAlgorithm::multipass "
                                          "reaches them through device addresses");
  }
  l.device_address = use_device_address(ctx, count, fit, l.onesweep);
  core::size_sort_counts(l, count);
  if (l.counts * 4 > impl.max_binding_bytes)
    throw Error(Errc::too_large, "the sort's digit counts (256 per tile of " + std::to_string(l.shape.tile()) +
                                     " keys: " + std::to_string(l.counts * 4) + " bytes) do not fit one binding (" +
                                     std::to_string(impl.max_binding_bytes) +
                                     " bytes); ask for larger tiles (workgroup_size, keys_per_lane)");
  if (count > 0) l.scan_req = scan_temp_requirements(ctx, l.counts, counts_scan_config(ctx));
  core::place_sort_arrays(l, count, kbytes, vbytes, l.scan_req.size, indirect);
  return l;
}

// What both record calls hand to record_passes (values_in empty without values; `indices`: argsort).
struct Buffers {
  BufferView keys_in, keys_out, values_in, values_out, temp;
  bool indices = false;
};

// Records the sort's program (or with cmd VK_NULL_HANDLE only builds the pipelines). With `count_from`,
// `count` is its upper bound. `stop` short of all stops early (vulkan/sort_stages.hpp).
void record_passes(const Context& ctx, VkCommandBuffer cmd, const Layout& l, const SortConfig& config, uint64_t count,
                   const Buffers& b, const IndirectCount* count_from, core::SortStop stop = core::SortStop::all) {
  Context::Impl& impl = impl_of(ctx);
  core::SortRequest q;
  q.config = config;
  q.count = count;
  q.indices = b.indices;
  q.device_address = l.device_address;
  q.count_from = count_from != nullptr;
  q.count_64bit = count_from && count_from->is_64bit;
  q.count_status = count_from && count_from->status.buffer != VK_NULL_HANDLE;
  q.counts_scan = [&ctx](uint64_t n) { return vk::scan_program(ctx, n, counts_scan_config(ctx), true); };
  q.limits = {impl.max_groups_x, ctx.device_info().max_workgroup_count[1]};
  q.spin_limit = impl.spin_limit(0);
  q.withhold_first_tile = impl.withhold_first_tile;
  q.stop = stop;
  const BufferView buffers[] = {b.keys_in,  b.keys_out,
                                b.values_in.buffer ? b.values_in : b.keys_in,  // unread without values
                                b.values_out.buffer ? b.values_out : b.keys_out,
                                b.temp,
                                count_from ? count_from->buffer : BufferView{},
                                count_from ? count_from->status : BufferView{}};  // core::SortBuffer's order
  vk::execute(ctx, cmd, core::sort_program(l, q), buffers);
}

// The checks both record calls share; `values`: the values' byte ranges take part. A count_from bound of
// 0 reaches only temp (its count's words) and the count.
void check_buffers(const Context& ctx, const Layout& l, const SortConfig& config, uint64_t count, const Buffers& b,
                   bool values, const IndirectCount* count_from) {
  const uint32_t kbytes = element_size(config.key_type), vbytes = config.value_bytes;
  const char* need = "the sort needs";
  if (count > 0) {
    vk::check_view("keys_in", b.keys_in, count, kbytes, need);
    vk::check_view("keys_out", b.keys_out, count, kbytes, need);
  }
  vk::check_view("temp", b.temp, l.bytes / 4, 4, "the sort needs (bytes / 4)");
  if (l.onesweep && !(b.temp.usage & VK_BUFFER_USAGE_TRANSFER_DST_BIT))
    throw Error(Errc::missing_usage, "temp buffer lacks VK_BUFFER_USAGE_TRANSFER_DST_BIT, which the Onesweep sort "
                                     "needs to clear its tile states (sort_temp_requirements' usage)");
  const VkDeviceSize align = std::max<VkDeviceSize>(l.scan_req.alignment, 8);
  if (b.temp.offset % align != 0)
    throw Error(Errc::misaligned, "temp starts at byte " + std::to_string(b.temp.offset) + ", not a multiple of " +
                                      std::to_string(align) + " (sort_temp_requirements' alignment)");
  if (count_from) {  // its words are read, and its dispatches sized for the bound: no INDIRECT_BUFFER usage
    const core::ByteRange written[] = {vk::byte_range(b.keys_out, count * kbytes), vk::byte_range(b.temp, l.bytes),
                                       vk::byte_range(b.values_out, values ? count * vbytes : 0)};
    vk::check_indirect_count(*count_from, b.temp, written, "keys_out, values_out or temp", "a sort", false);
  }
  if (count == 0) return;
  if (l.device_address) {
    std::vector<std::pair<const char*, const BufferView*>> reached = {
        {"keys_in", &b.keys_in}, {"keys_out", &b.keys_out}, {"temp", &b.temp}};
    if (values) reached.push_back({"values_out", &b.values_out});
    if (values && !b.indices) reached.push_back({"values_in", &b.values_in});
    for (const auto& [name, view] : reached)
      if (!vk::has_device_address(*view))
        throw Error(Errc::missing_usage,
                    std::string(name) + " buffer lacks VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT: this sort reaches its "
                                        "keys and values through device addresses (" +
                        (impl_of(ctx).addressing == Addressing::device_address
                             ? std::string("Addressing::device_address")
                             : std::to_string(count) + " keys do not fit one binding") +
                        "), every buffer it reads or writes needs it (sort_temp_requirements' usage for temp)");
  }
  std::vector<core::NamedRange> ranges = {{"keys_in", vk::byte_range(b.keys_in, count * kbytes)},
                                          {"keys_out", vk::byte_range(b.keys_out, count * kbytes)},
                                          {"temp", vk::byte_range(b.temp, l.bytes)}};
  if (values) {
    vk::check_view("values_out", b.values_out, count, vbytes, need);
    ranges.push_back({"values_out", vk::byte_range(b.values_out, count * vbytes)});
    if (!b.indices) {
      vk::check_view("values_in", b.values_in, count, vbytes, need);
      ranges.push_back({"values_in", vk::byte_range(b.values_in, count * vbytes)});
    }
  }
  core::check_sort_overlaps(ranges);
}

void record(const Context& ctx, VkCommandBuffer cmd, const SortConfig& config, uint64_t count, const Buffers& b,
            bool pairs, const std::optional<IndirectCount>& count_from,
            vk::SortStages stages = vk::SortStages::all) {
  if (cmd == VK_NULL_HANDLE) throw Error(Errc::null_handle, "command buffer is VK_NULL_HANDLE");
  check_sort_values(config, pairs);
  if (b.indices && config.value_bytes != 4)
    throw Error(Errc::invalid_argument, "values_are_indices makes u32 positions: SortConfig::value_bytes must be 4");
  const Layout l = layout_for(ctx, count, config, count_from.has_value());
  if (count == 0 && !count_from) return;
  const IndirectCount* from = count_from ? &*count_from : nullptr;
  check_buffers(ctx, l, config, count, b, pairs, from);
  // (No key to sort with a count in GPU memory: the program writes the status word alone.)
  record_passes(ctx, cmd, l, config, count, b, from, static_cast<core::SortStop>(stages));
}

}  // namespace

namespace vk {
void record_sort_stages(const Context& ctx, VkCommandBuffer cmd, const SortPairsArgs& args, SortStages stages) {
  const bool pairs = args.config.value_bytes != 0;
  record(ctx, cmd, args.config, args.count,
         {args.keys_in, args.keys_out, args.values_in, args.values_out, args.temp, args.values_are_indices}, pairs, args.count_from,
         stages);
}
}  // namespace vk

uint32_t sort_passes(const SortConfig& config) { return core::sort_pass_count(core::sort_bit_range(config)); }

}  // namespace gpuscan

namespace gpuscan::vk {

TempRequirements sort_temp(const Context& ctx, const primitive::Sort& s, uint64_t max_count, bool indirect) {
  const SortConfig& config = s.config;
  check_sort_values(config, config.value_bytes != 0);
  const Layout l = layout_for(ctx, max_count, config, indirect);
  TempRequirements req;
  req.size = l.bytes;
  req.alignment = std::max<VkDeviceSize>(l.scan_req.alignment, 8);
  req.usage = l.scan_req.usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
              (l.onesweep ? VkBufferUsageFlags{VK_BUFFER_USAGE_TRANSFER_DST_BIT} : VkBufferUsageFlags{0}) |
              (l.device_address ? VkBufferUsageFlags{VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT} : VkBufferUsageFlags{0});
  return req;
}

std::string sort_describe(const Context& ctx, const primitive::Sort& s, uint64_t count) {
  const SortConfig& config = s.config;
  check_sort_values(config, config.value_bytes != 0);
  const Layout l = layout_for(ctx, count, config, false);
  std::string text = std::string(l.onesweep ? "onesweep" : "multipass") + ", " + std::to_string(l.passes) +
                     (l.passes == 1 ? " pass" : " passes") + ", W = " + std::to_string(l.shape.workgroup_size) +
                     ", K = " + std::to_string(l.shape.keys_per_lane) + ", ranking by " +
                     (l.shape.rows ? "subgroup ballots" : "1-bit splits (no subgroups)") +
                     (l.device_address ? ", keys and values through device addresses" : "");
  if (!l.onesweep && l.counts > 0)
    text += "\ncount scan: " + describe_scan_plan(ctx, l.counts, counts_scan_config(ctx));
  return text;
}

void sort_record(const Context& ctx, VkCommandBuffer cmd, const primitive::Sort& s, const SortBuffers& b) {
  record(ctx, cmd, s.config, b.count, {b.keys_in, b.keys_out, b.values_in, b.values_out, b.temp, b.values_are_indices},
         s.config.value_bytes != 0, b.count_from);
}

void sort_prepare(const Context& ctx, const primitive::Sort& s, uint64_t max_count, bool indirect) {
  const SortConfig& config = s.config;
  check_sort_values(config, config.value_bytes != 0);
  const uint64_t count = std::max<uint64_t>(max_count, 1);
  const Layout l = layout_for(ctx, count, config, indirect);
  prepare_scan(ctx, l.counts, counts_scan_config(ctx), {.in_place = true});
  const BufferView any = vk::stand_in_view();
  const IndirectCount from{.buffer = any};
  record_passes(ctx, VK_NULL_HANDLE, l, config, count, {any, any, any, any, any}, indirect ? &from : nullptr);
}

}  // namespace gpuscan::vk

namespace gpuscan {

// The free calls: one plan each, made for this one call (its pipelines are built at the first record, then
// kept by the context). record_sort and record_sort_pairs first check that the config's value_bytes says
// the same as the call.

TempRequirements sort_temp_requirements(const Context& ctx, uint64_t count, const SortConfig& config, bool indirect) {
  return Plan(ctx, primitive::Sort{config}, core::one_call(count, indirect)).temp_requirements();
}

std::string describe_sort_plan(const Context& ctx, uint64_t count, const SortConfig& config) {
  return Plan(ctx, primitive::Sort{config}, core::one_call(count)).describe(count);
}

void record_sort(const Context& ctx, VkCommandBuffer cmd, const SortArgs& args) {
  check_sort_values(args.config, false);
  Plan(ctx, primitive::Sort{args.config}, core::one_call(args.count, args.count_from.has_value()))
      .record(cmd, {args.count, args.keys_in, args.keys_out, {}, {}, args.temp, false, args.count_from});
}

void record_sort_pairs(const Context& ctx, VkCommandBuffer cmd, const SortPairsArgs& args) {
  check_sort_values(args.config, true);
  Plan(ctx, primitive::Sort{args.config}, core::one_call(args.count, args.count_from.has_value()))
      .record(cmd, {args.count, args.keys_in, args.keys_out, args.values_in, args.values_out, args.temp,
                    args.values_are_indices, args.count_from});
}

void prepare_sort(const Context& ctx, uint64_t max_count, const SortConfig& config, bool indirect) {
  Plan(ctx, primitive::Sort{config}, {.max_count = max_count, .count_from_gpu = indirect});
}

SortedBytes sort_bytes(const Context& ctx, std::span<const std::byte> keys, std::span<const std::byte> values,
                       const SortConfig& config, bool indices) {
  const uint64_t n = core::check_sort_bytes(keys.size(), values.size(), config, indices);
  return Plan(ctx, primitive::Sort{config}, core::one_call(n))
      .run({.keys = keys, .values = values, .indices = indices});
}

}  // namespace gpuscan
