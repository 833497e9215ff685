// Distributed scan and reduce on pieces in GPU buffers (DevicePiece): the host-span form's MPI steps
// (mpi/scan_steps.hpp) around two local submissions, a reduce into one host-visible element and a scan
// of the caller's buffers with the carry-in as ScanArgs::initial_bits. Only one element per rank
// crosses to the host.
#include <cstring>
#include <optional>

#include "gpuscan/mpi.hpp"
#include "gpuscan/reduce.hpp"
#include "mpi/device_submit.hpp"
#include "mpi/scan_steps.hpp"

namespace gpuscan::mpi {

namespace {

// The local reduce: record_reduce into one host-visible element, read back after the fence.
template <class T>
T local_total(const Context& ctx, const DevicePiece& piece, Op op, StepTimes* times) {
  ReduceConfig config;
  config.type = data_type_of<T>::value;
  config.op = op;
  const TempRequirements req = reduce_temp_requirements(ctx, piece.count, config);  // validates type and op
  if (piece.count == 0) return cpu::identity<T>(op);
  std::optional<detail::AddElapsed> scratch_time(times ? &times->scratch : nullptr);
  const auto lock = detail::scratch_lock(ctx);
  vk::OwnedBuffer& temp = detail::scratch(ctx, req.size, false);
  vk::OwnedBuffer& result = detail::scratch(ctx, sizeof(T), true);
  scratch_time.reset();
  detail::submit_between_barriers(
      ctx, {&temp, &result},
      [&](VkCommandBuffer cmd) { record_reduce(ctx, cmd, {config, piece.count, piece.input, result.view(), temp.view()}); },
      times ? &times->reduce : nullptr);
  T total;
  std::memcpy(&total, result.mapped(), sizeof(T));
  return total;
}

bool same_range(const BufferView& a, const BufferView& b) { return a.buffer == b.buffer && a.offset == b.offset; }

}  // namespace

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
        const bool in_place = same_range(piece.input, piece.output);
        const TempRequirements req = scan_temp_requirements(ctx, piece.count, config, in_place);
        if (piece.count == 0) return;
        std::optional<detail::AddElapsed> scratch_time(times ? &times->scratch : nullptr);
        const auto lock = detail::scratch_lock(ctx);
        vk::OwnedBuffer& temp = detail::scratch(ctx, req.size, false);
        scratch_time.reset();
        ScanArgs args{config, piece.count, piece.input, piece.output, temp.view()};
        if (before) args.initial_bits = element_bits(*before);
        detail::submit_between_barriers(
            ctx, {&temp}, [&](VkCommandBuffer cmd) { record_scan(ctx, cmd, args); }, times ? &times->scan : nullptr);
      },
      times);
}

template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, Op op, StepTimes* times) {
  if (times) *times = {};
  detail::AddElapsed total_time(times ? &times->total : nullptr);
  return detail::distributed_reduce<T>(comm, op, [&] { return local_total<T>(ctx, piece, op, times); }, times);
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                      \
  template void scan<T>(const Context&, MPI_Comm, const DevicePiece&, ScanConfig, StepTimes*); \
  template T reduce<T>(const Context&, MPI_Comm, const DevicePiece&, Op, StepTimes*);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
GPUSCAN_MPI_INSTANTIATE(uint64_t)
GPUSCAN_MPI_INSTANTIATE(int64_t)
GPUSCAN_MPI_INSTANTIATE(double)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
