// Distributed scan and reduce on pieces in GPU buffers (DevicePiece): the host-span form's MPI steps
// (mpi/scan_steps.hpp) around two local submissions, a reduce into one host-visible element and a scan
// of the caller's buffers with the carry-in as ScanArgs::initial_bits. Only one element per rank
// crosses to the host.
#include <algorithm>
#include <cstring>
#include <optional>

#include "gpuscan/mpi.hpp"
#include "gpuscan/reduce.hpp"
#include "mpi/device_submit.hpp"
#include "mpi/scan_steps.hpp"

namespace gpuscan::mpi {

namespace {


// The temp view for a local step that needs `req`: the caller's DevicePiece::temp (checked), or else
// the Context's device scratch, which `*scratch` then names (the caller holds scratch_lock).
BufferView temp_for(const Context& ctx, const DevicePiece& piece, const TempRequirements& req,
                    vk::OwnedBuffer*& scratch) {
  scratch = nullptr;
  if (!piece.temp.buffer) {
    scratch = &detail::scratch(ctx, req.size, false);
    return scratch->view();
  }
  const VkDeviceSize room = piece.temp.buffer_size > piece.temp.offset ? piece.temp.buffer_size - piece.temp.offset : 0;
  if (room < req.size)
    throw Error(Errc::buffer_too_small, "DevicePiece::temp has " + std::to_string(room) +
                                            " bytes from its offset; this call needs " + std::to_string(req.size) +
                                            " (gpuscan::mpi::temp_requirements)");
  if ((piece.temp.usage & req.usage) != req.usage)
    throw Error(Errc::missing_usage, "DevicePiece::temp lacks usage flags the call needs (gpuscan::mpi::temp_requirements)");
  return piece.temp;
}

ReduceConfig reduce_config(DataType type, Op op) {
  ReduceConfig config;
  config.type = type;
  config.op = op;
  return config;
}

// The local reduce: record_reduce into one host-visible element, read back after the fence.
template <class T>
T local_total(const Context& ctx, const DevicePiece& piece, Op op, StepTimes* times) {
  const ReduceConfig config = reduce_config(data_type_of<T>::value, op);
  const TempRequirements req = reduce_temp_requirements(ctx, piece.count, config);  // validates type and op
  if (piece.count == 0) return cpu::identity<T>(op);
  std::optional<detail::AddElapsed> scratch_time(times ? &times->scratch : nullptr);
  const auto lock = detail::scratch_lock(ctx);
  vk::OwnedBuffer& result = detail::scratch(ctx, sizeof(T), true);
  vk::OwnedBuffer* temp_scratch = nullptr;
  const BufferView temp = temp_for(ctx, piece, req, temp_scratch);
  scratch_time.reset();
  detail::submit_between_barriers(
      ctx, {&result, temp_scratch},
      [&](VkCommandBuffer cmd) { record_reduce(ctx, cmd, {config, piece.count, piece.input, result.view(), temp}); },
      times ? &times->reduce : nullptr);
  T total;
  std::memcpy(&total, result.mapped(), sizeof(T));
  return total;
}

}  // namespace

template <Element T>
TempRequirements temp_requirements(const Context& ctx, const DevicePiece& piece, ScanConfig config) {
  config.type = data_type_of<T>::value;
  const TempRequirements reduce = reduce_temp_requirements(ctx, piece.count, reduce_config(config.type, config.op));
  const TempRequirements scan =
      scan_temp_requirements(ctx, piece.count, config);
  return {std::max(reduce.size, scan.size), reduce.usage | scan.usage};
}

template <Element T>
void scan(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, ScanConfig config, StepTimes* times) {
  if (times) *times = {};
  detail::AddElapsed total_time(times ? &times->total : nullptr);
  if (config.custom_op)  // as the host form (scan.cpp): no reductions or carry-ins for custom operators
    throw Error(Errc::unsupported, "gpuscan::mpi::scan takes no custom operator (ScanConfig::custom_op)");
  config.type = data_type_of<T>::value;
  detail::distributed_scan<T>(
      comm, config, [&] { return local_total<T>(ctx, piece, config.op, times); },
      [&](std::optional<T> before) {
        const TempRequirements req = scan_temp_requirements(ctx, piece.count, config);
        if (piece.count == 0) return;
        std::optional<detail::AddElapsed> scratch_time(times ? &times->scratch : nullptr);
        const auto lock = detail::scratch_lock(ctx);
        vk::OwnedBuffer* temp_scratch = nullptr;
        ScanArgs args{config, piece.count, piece.input, piece.output, temp_for(ctx, piece, req, temp_scratch)};
        scratch_time.reset();
        if (before) args.initial_bits = element_bits(*before);
        detail::submit_between_barriers(
            ctx, {temp_scratch}, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, args); },
            times ? &times->scan : nullptr);
      },
      times);
}

template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, Op op, StepTimes* times) {
  if (times) *times = {};
  detail::AddElapsed total_time(times ? &times->total : nullptr);
  return detail::distributed_reduce<T>(comm, op, [&] { return local_total<T>(ctx, piece, op, times); }, times);
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                                \
  template void scan<T>(const Context&, MPI_Comm, const DevicePiece&, ScanConfig, StepTimes*);   \
  template T reduce<T>(const Context&, MPI_Comm, const DevicePiece&, Op, StepTimes*);            \
  template TempRequirements temp_requirements<T>(const Context&, const DevicePiece&, ScanConfig);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
GPUSCAN_MPI_INSTANTIATE(uint64_t)
GPUSCAN_MPI_INSTANTIATE(int64_t)
GPUSCAN_MPI_INSTANTIATE(double)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
