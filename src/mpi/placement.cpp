// Rank -> device: one rank per device by the rank's position on its node.
#include <optional>

#include "gpuscan/mpi.hpp"
#include "mpi/collective.hpp"

namespace gpuscan::mpi {

Placement place(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  Placement p;
  p.local_rank = detail::rank_of(node);
  p.local_size = detail::size_of(node);
  MPI_Comm_free(&node);
  // Local, and able to fail (no device): agreed, so that no rank waits on one that threw.
  detail::run_agreed(comm, "gpuscan::mpi::place", [&] {
    const std::vector<DeviceInfo> candidates = Context::preferred_devices();
    if (candidates.empty()) throw Error(Errc::no_device, "no Vulkan device on this node can run gpuscan");
    const DeviceInfo& chosen = candidates[static_cast<size_t>(p.local_rank) % candidates.size()];
    p.device_index = chosen.index;
    p.device_name = chosen.name;
  });
  return p;
}

Context create_context(MPI_Comm comm, ContextCreateInfo info) {
  const Placement p = place(comm);  // collective: every rank takes part even if it overrides
  if (info.device_selector.empty()) info.device_selector = std::to_string(p.device_index);
  std::optional<Context> ctx;
  detail::run_agreed(comm, "gpuscan::mpi::create_context", [&] { ctx.emplace(Context::create(info)); });
  return std::move(*ctx);
}

}  // namespace gpuscan::mpi
