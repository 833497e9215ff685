// Convenience calls on host data: one-shot plans (gpuscan/gl/plan.hpp), whose host-data path owns its
// buffers and checks the GL error state before returning.
#include <cstring>
#include <vector>

#include "core/host_run.hpp"
#include "core/plan_checks.hpp"
#include "core/scan_shape.hpp"
#include "gl/buffers.hpp"
#include "gl/context_impl.hpp"
#include "gl/record.hpp"
#include "gpuscan/gl/plan.hpp"

namespace gpuscan::gl {
namespace {

// A one-shot plan on host data (gpuscan/gl/plan.hpp); `flags`: values.size() u32 flags, or nullptr for a
// predicate.
template <class T>
PartitionResult<T> run_compact(const Context& ctx, std::span<const T> values, const uint32_t* flags,
                               Predicate predicate, CompactConfig config, bool partition) {
  config.type = data_type_of<T>::value;
  impl_of(ctx).check_current();
  primitive::Select::Output r =
      Plan(ctx,
           primitive::Select{.config = config,
                             .flagged = flags != nullptr,
                             .predicate = flags ? PredicateKind::nonzero : predicate.kind,
                             .partition = partition}, core::one_call(values.size()))
          .run({.values = std::as_bytes(values),
                .flags = {reinterpret_cast<const std::byte*>(flags), flags ? values.size() * 4 : 0},
                .predicate = predicate});
  return {gpuscan::detail::from_bytes<T>(r.values), r.kept};
}

}  // namespace

// The untyped calls are one-shot plans run on host data (gpuscan/gl/plan.hpp), their programs compiled as
// the run needs them.
std::vector<std::byte> scan_bytes(const Context& ctx, std::span<const std::byte> input, const ScanConfig& config,
                                  double* gpu_ns, std::optional<uint64_t> initial_bits) {
  impl_of(ctx).check_current();
  const uint32_t esize = config.custom_op ? compile_custom_op(ctx, *config.custom_op) : element_size(config.type);
  const uint64_t count = core::scan_elements(input.size(), config, esize);
  return Plan(ctx, primitive::Scan{config}, core::one_call(count))
      .run({.values = input, .initial_bits = initial_bits}, gpu_ns);
}

std::vector<std::byte> reduce_bytes(const Context& ctx, std::span<const std::byte> input, const ReduceConfig& config,
                                    double* gpu_ns) {
  impl_of(ctx).check_current();
  const uint64_t count = core::whole_elements(input.size(), config.type, "the input");
  return Plan(ctx, primitive::Reduce{config}, core::one_call(count)).run({.values = input}, gpu_ns);
}

template <GlElement T>
T reduce(const Context& ctx, std::span<const T> input, ReduceConfig config) {
  config.type = data_type_of<T>::value;
  const std::vector<std::byte> bytes = reduce_bytes(ctx, std::as_bytes(input), config);
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
  template T reduce(const Context&, std::span<const T>, ReduceConfig);
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
