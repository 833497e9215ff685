// Convenience calls on host data: upload into new GL buffers, issue the record-level call, download.
// Each call owns its buffers and deletes them; the GL error state is checked before returning.
#include <cstring>
#include <vector>

#include "core/scan_shape.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/record.hpp"

namespace gpuscan::gl {
namespace {

template <class T>
PartitionResult<T> run_compact(const Context& ctx, std::span<const T> values, const uint32_t* flags,
                               Predicate predicate, CompactConfig config, bool partition) {
  config.type = data_type_of<T>::value;
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const uint64_t n = values.size();
  const TempRequirements temp_req = compact_temp_requirements(ctx, n, config);  // validates the config
  if (n == 0) return {};
  const uint64_t bytes = n * sizeof(T);
  OwnedBuffer in(impl.gl, bytes, values.data());
  OwnedBuffer out(impl.gl, bytes);
  OwnedBuffer count(impl.gl, 4);
  OwnedBuffer temp(impl.gl, temp_req.size);
  OwnedBuffer flag_buffer(impl.gl, flags ? n * 4 : 0, flags);
  SelectArgs args{config, n, in.view(), flag_buffer.view(), predicate, out.view(), count.view(), temp.view()};
  if (flags) (partition ? record_partition_flagged : record_select_flagged)(ctx, args);
  else (partition ? record_partition_if : record_select_if)(ctx, args);
  impl.gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  uint32_t kept = 0;
  count.read(&kept, 4);
  impl.check_error("compaction");
  if (kept > n)
    throw Error(Errc::gl_error, "the GPU reported " + std::to_string(kept) + " elements kept of " + std::to_string(n));
  PartitionResult<T> result;
  result.kept = kept;
  result.values.resize(partition ? n : kept);
  out.read(result.values.data(), result.values.size() * sizeof(T));
  impl.check_error("reading the compaction's output");
  return result;
}

}  // namespace

std::vector<std::byte> scan_bytes(const Context& ctx, std::span<const std::byte> input, const ScanConfig& config,
                                  double* gpu_ns, std::optional<uint64_t> initial_bits) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  // A custom operator's elements are its T's (the snippet compiled first, for its size).
  const uint32_t esize = config.custom_op ? impl.custom_op(*config.custom_op).element_size : element_size(config.type);
  if (input.size() % esize != 0)
    throw Error(Errc::invalid_argument, "input of " + std::to_string(input.size()) + " bytes is not a whole number of " +
                                            (config.custom_op ? "the custom operator's " + std::to_string(esize) +
                                                                    "-byte"
                                                              : std::string(to_string(config.type))) +
                                            " elements");
  const uint64_t n = input.size() / esize;
  const TempRequirements temp_req = scan_temp_requirements(ctx, n, config);  // validates the config
  if (gpu_ns) *gpu_ns = 0;
  if (n == 0) return {};
  OwnedBuffer in(impl.gl, input.size(), input.data());
  OwnedBuffer out(impl.gl, input.size());
  OwnedBuffer temp(impl.gl, temp_req.size);
  record_scan_timed(ctx, {config, n, in.view(), out.view(), temp.view(), initial_bits}, gpu_ns);
  impl.gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::vector<std::byte> result(input.size());
  out.read(result.data(), result.size());
  impl.check_error("scan");
  return result;
}

std::vector<std::byte> reduce_bytes(const Context& ctx, std::span<const std::byte> input, const ReduceConfig& config,
                                    double* gpu_ns) {
  Context::Impl& impl = impl_of(ctx);
  impl.check_current();
  const uint32_t esize = element_size(config.type);
  if (input.size() % esize != 0)
    throw Error(Errc::invalid_argument, "input of " + std::to_string(input.size()) + " bytes is not a whole number of " +
                                            std::string(to_string(config.type)) + " elements");
  const uint64_t n = input.size() / esize;
  const TempRequirements temp_req = reduce_temp_requirements(ctx, n, config);  // validates the config
  OwnedBuffer in(impl.gl, input.size(), input.data());
  OwnedBuffer out(impl.gl, esize);
  OwnedBuffer temp(impl.gl, temp_req.size);
  record_reduce_timed(ctx, {config, n, in.view(), out.view(), temp.view()}, gpu_ns);
  impl.gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  std::vector<std::byte> result(esize);
  out.read(result.data(), esize);
  impl.check_error("reduction");
  return result;
}

template <GlElement T>
T reduce(const Context& ctx, std::span<const T> input, Op op) {
  const std::vector<std::byte> bytes = reduce_bytes(ctx, std::as_bytes(input), {data_type_of<T>::value, op});
  T result;
  std::memcpy(&result, bytes.data(), sizeof(T));
  return result;
}

namespace {

template <GlElement T>
std::vector<T> scan_typed(const Context& ctx, std::span<const T> input, ScanConfig config,
                          std::optional<uint64_t> initial_bits) {
  config.type = data_type_of<T>::value;
  const std::vector<std::byte> bytes = scan_bytes(ctx, std::as_bytes(input), config, nullptr, initial_bits);
  std::vector<T> out(input.size());
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace

template <GlElement T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config) {
  return scan_typed(ctx, input, config, std::nullopt);
}

template <GlElement T>
std::vector<T> scan(const Context& ctx, std::span<const T> input, ScanConfig config, T initial) {
  return scan_typed(ctx, input, config, element_bits(initial));
}

template <Element T>
std::vector<T> select_if(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config) {
  return run_compact(ctx, values, nullptr, predicate, config, false).values;
}

template <Element T>
std::vector<T> select_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                              CompactConfig config) {
  core::check_flag_count(flags.size(), values.size());
  static const uint32_t none = 0;
  return run_compact(ctx, values, values.empty() ? &none : flags.data(), Predicate{}, config, false).values;
}

template <Element T>
PartitionResult<T> partition(const Context& ctx, std::span<const T> values, Predicate predicate, CompactConfig config) {
  return run_compact(ctx, values, nullptr, predicate, config, true);
}

template <Element T>
PartitionResult<T> partition_flagged(const Context& ctx, std::span<const T> values, std::span<const uint32_t> flags,
                                     CompactConfig config) {
  core::check_flag_count(flags.size(), values.size());
  static const uint32_t none = 0;
  return run_compact(ctx, values, values.empty() ? &none : flags.data(), Predicate{}, config, true);
}

#define GPUSCAN_GL_INSTANTIATE_SCAN(T)                                                                         \
  template std::vector<T> scan(const Context&, std::span<const T>, ScanConfig);                               \
  template std::vector<T> scan(const Context&, std::span<const T>, ScanConfig, T);                            \
  template T reduce(const Context&, std::span<const T>, Op);
GPUSCAN_GL_INSTANTIATE_SCAN(uint32_t)
GPUSCAN_GL_INSTANTIATE_SCAN(int32_t)
GPUSCAN_GL_INSTANTIATE_SCAN(float)
GPUSCAN_GL_INSTANTIATE_SCAN(uint64_t)
GPUSCAN_GL_INSTANTIATE_SCAN(int64_t)
GPUSCAN_GL_INSTANTIATE_SCAN(double)
#undef GPUSCAN_GL_INSTANTIATE_SCAN

// Compaction: every type (u64 and i64 need GL_ARB_gpu_shader_int64: resolve_compact in record.cpp).
#define GPUSCAN_GL_INSTANTIATE(T)                                                                              \
  template std::vector<T> select_if(const Context&, std::span<const T>, Predicate, CompactConfig);            \
  template std::vector<T> select_flagged(const Context&, std::span<const T>, std::span<const uint32_t>,       \
                                         CompactConfig);                                                       \
  template PartitionResult<T> partition(const Context&, std::span<const T>, Predicate, CompactConfig);        \
  template PartitionResult<T> partition_flagged(const Context&, std::span<const T>, std::span<const uint32_t>, \
                                                CompactConfig);
GPUSCAN_GL_INSTANTIATE(uint32_t)
GPUSCAN_GL_INSTANTIATE(int32_t)
GPUSCAN_GL_INSTANTIATE(float)
GPUSCAN_GL_INSTANTIATE(uint64_t)
GPUSCAN_GL_INSTANTIATE(int64_t)
GPUSCAN_GL_INSTANTIATE(double)
#undef GPUSCAN_GL_INSTANTIATE

}  // namespace gpuscan::gl
