// How gpuscan::mpi's calls on pieces in GPU buffers (DevicePiece, DeviceSelectPiece) submit their local
// work: one command buffer between the two barriers of the contract in mpi.hpp, waited for, with temp
// memory from the Context's scratch (or the caller's).
#pragma once

#include <functional>
#include <initializer_list>
#include <mutex>

#include "gpuscan/mpi.hpp"
#include "gpuscan/vulkan.hpp"
#include "vulkan/memory.hpp"

namespace gpuscan::mpi::detail {

// Records `record` after a full barrier (all earlier commands on ctx's queue -> compute and transfer)
// and before one from compute writes to all later commands and the host; submits and waits. After a
// timeout `owned` (null entries skipped) go to the Context's abandoned list (the GPU may still use
// them), as the convenience calls do.
// With `times`, fills it (vk::submit_and_wait's SubmitTimes).
void submit_between_barriers(const Context& ctx, std::initializer_list<vk::OwnedBuffer*> owned,
                             const std::function<void(VkCommandBuffer)>& record, SubmitTimes* times = nullptr);

// The Context's reusable scratch (Context::Impl::scratch_device / scratch_host): at least `bytes`, with
// every usage a temp or result needs, reallocated only when too small. Allocating on every call cost
// more than the GPU work of a 2^28-element scan on the H200 (bench/RESULTS.md). Use it only while
// holding scratch_lock(ctx), and pass it to submit_between_barriers as owned.
std::unique_lock<std::mutex> scratch_lock(const Context& ctx);
vk::OwnedBuffer& scratch(const Context& ctx, VkDeviceSize bytes, bool host_visible);

}  // namespace gpuscan::mpi::detail
