// Distributed scan and reduce: each rank reduces its piece on its GPU, the ranks' totals are gathered
// and combined in rank order (mpi/scan_steps.hpp), and each rank scans its piece with the combination of
// the totals before it as the scan's carry-in (ScanArgs::initial_bits), inside the shader.
#include "gpuscan/mpi.hpp"
#include "gpuscan/reduce.hpp"
#include "mpi/scan_steps.hpp"

namespace gpuscan::mpi {

template <Element T>
std::vector<T> scan(const Context& ctx, MPI_Comm comm, std::span<const T> piece, ScanConfig config) {
  if (config.custom_op)  // the ranks chain through reductions and carry-ins, which custom operators lack
    throw Error(Errc::unsupported, "gpuscan::mpi::scan takes no custom operator (ScanConfig::custom_op)");
  config.type = data_type_of<T>::value;
  std::vector<T> out;
  detail::distributed_scan<T>(
      comm, config, [&] { return gpuscan::reduce<T>(ctx, piece, config.op); },
      [&](std::optional<T> before) {
        out = before ? gpuscan::scan<T>(ctx, piece, config, *before) : gpuscan::scan<T>(ctx, piece, config);
      });
  return out;
}

template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, std::span<const T> piece, Op op) {
  return detail::distributed_reduce<T>(comm, op, [&] { return gpuscan::reduce<T>(ctx, piece, op); });
}

#define GPUSCAN_MPI_INSTANTIATE(T)                                                           \
  template std::vector<T> scan(const Context&, MPI_Comm, std::span<const T>, ScanConfig); \
  template T reduce(const Context&, MPI_Comm, std::span<const T>, Op);
GPUSCAN_MPI_INSTANTIATE(uint32_t)
GPUSCAN_MPI_INSTANTIATE(int32_t)
GPUSCAN_MPI_INSTANTIATE(float)
GPUSCAN_MPI_INSTANTIATE(uint64_t)
GPUSCAN_MPI_INSTANTIATE(int64_t)
GPUSCAN_MPI_INSTANTIATE(double)
#undef GPUSCAN_MPI_INSTANTIATE

}  // namespace gpuscan::mpi
