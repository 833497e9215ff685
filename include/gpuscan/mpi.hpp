// gpuscan::mpi: primitives over an array spread across the ranks of an MPI communicator. Each rank
// holds one contiguous piece, the pieces in rank order make the whole array, and any piece may be
// empty. Every function here is collective: all ranks of the communicator call it, with the same
// primitive, type and operator (checked: a mismatch throws Errc::invalid_argument on every rank, it
// never hangs), and a failure on one rank (bad input, a device error) throws on every rank too.
//
// Scan, reduce and stream compaction, on pieces in host memory or in GPU buffers (DevicePiece,
// DeviceSelectPiece), where the data stays on the GPU. An optional component, built when CMake finds MPI: link
// gpuscan::mpi. Guide: docs/mpi.md.
//
//   MPI_Init(&argc, &argv);
//   gpuscan::Context ctx = gpuscan::mpi::create_context(MPI_COMM_WORLD);  // one GPU per rank on its node
//   // rank 0 holds {5, 1, 7}, rank 1 holds {}, rank 2 holds {9, 2}
//   auto kept = gpuscan::mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, piece,
//                                                 gpuscan::Predicate::greater(4u));
//   // rank 0: values {5, 7}, global_offset 0; rank 1: {}, 2; rank 2: {9}, 2; global_count 3 everywhere
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpuscan/compact.hpp"
#include "gpuscan/reduce.hpp"
#include "gpuscan/vulkan.hpp"

namespace gpuscan::mpi {

// Where a rank runs: its rank among the ranks of its node (MPI_COMM_TYPE_SHARED), how many share the
// node, and the device it takes.
struct Placement {
  int local_rank = 0;
  int local_size = 1;
  uint32_t device_index = 0;  // index into Context::list_devices()
  std::string device_name;
};

// One rank per device by local rank: rank k of a node takes device k mod D, where the D candidates are
// the node's devices of the best kind present (discrete GPUs if there are any, else integrated, then
// virtual, then CPU), in enumeration order. More ranks than devices share them round-robin, which
// works (each rank has its own Context). Collective over `comm`.
Placement place(MPI_Comm comm);

// Context::create on this rank's device (place()). A device_selector set in `info` overrides the
// placement (gpuscan's MPI programs set it from GPUSCAN_DEVICE). Collective over `comm`.
Context create_context(MPI_Comm comm, ContextCreateInfo info = {});

// What to do with the kept elements of a distributed compaction.
enum class Rebalance : uint8_t {
  none,   // each rank keeps what it selected from its own piece
  equal,  // redistribute (MPI_Alltoallv) so that rank r holds global elements
          // [r·K/P, (r+1)·K/P) of the K kept, P ranks: equal pieces to within one element, order kept
};

template <Element T>
struct Selection {
  std::vector<T> values;      // this rank's part of the result, in global order
  uint64_t global_offset = 0; // index of values[0] in the whole result (rank order)
  uint64_t global_count = 0;  // elements kept on all ranks together
};

// Stream compaction of the distributed array: each rank compacts its piece on its GPU (select_if /
// select_flagged of gpuscan/compact.hpp), then one MPI_Allgather of the local counts (with the same-call
// check and the error agreement) gives each rank's global offset and the global count. The result is
// stable: kept elements stay in global order.
//
//   pieces {5, 1, 7} | {} | {9, 2}, Predicate::greater(4u), Rebalance::equal
//   -> rank 0 {5}, offset 0 | rank 1 {7}, offset 1 | rank 2 {9}, offset 2; global_count 3
template <Element T>
Selection<T> select_if(const Context& ctx, MPI_Comm comm, std::span<const T> piece, Predicate predicate,
                       CompactConfig config = {}, Rebalance rebalance = Rebalance::none);

// As select_if, keeping piece[i] where flags[i] != 0; flags.size() must equal piece.size() on every rank.
template <Element T>
Selection<T> select_flagged(const Context& ctx, MPI_Comm comm, std::span<const T> piece,
                            std::span<const uint32_t> flags, CompactConfig config = {},
                            Rebalance rebalance = Rebalance::none);

// Scan of the distributed array with config.op (exclusive or inclusive as config.kind says): the
// result on each rank is its piece of the scan of the whole array. Each rank reduces its piece on its
// GPU; one MPI_Allgather carries every rank's total (with the same-call check and the error agreement,
// so it is the call's only collective before the scan), and rank r combines the totals of ranks 0..r-1
// in rank order (the same order on every run, so float results repeat); it then scans its piece with
// that combination as the scan's carry-in (ScanArgs::initial_bits), applied inside the shader. One
// MPI_Allreduce after the local scan makes a failure there throw on every rank.
// Each element is read three times on its rank (reduce, then the scan's two reads); floats are
// combined in an order that depends on how the array is split.
//
//   pieces {3, 1} | {} | {7, 0, 4}, exclusive add -> {0, 3} | {} | {4, 11, 11}
template <Element T>
std::vector<T> scan(const Context& ctx, MPI_Comm comm, std::span<const T> piece, ScanConfig config = {});
template <Element T>
std::vector<T> exclusive_scan(const Context& ctx, MPI_Comm comm, std::span<const T> piece, ScanConfig config = {}) {
  config.kind = ScanKind::exclusive;
  return scan<T>(ctx, comm, piece, config);
}
template <Element T>
std::vector<T> inclusive_scan(const Context& ctx, MPI_Comm comm, std::span<const T> piece, ScanConfig config = {}) {
  config.kind = ScanKind::inclusive;
  return scan<T>(ctx, comm, piece, config);
}

// The combination of the whole distributed array with `op`, returned on every rank: local reduce on
// each GPU, then one MPI_Allgather of the totals, combined in rank order on every rank.
//   pieces {3, 1} | {} | {7, 0, 4}, Op::max -> 7 on every rank
template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, std::span<const T> piece, Op op = Op::add);

// Pieces in GPU buffers. The same scan and reduce on data that stays on each rank's GPU: the local
// reduce writes one element to a small buffer, that ONE element is read back for the MPI step (the
// host-span form's code), and the local scan runs with the carry-in as ScanArgs::initial_bits, writing
// the caller's output buffer. Buffers must belong to ctx's device; views as record_scan's (vulkan.hpp).
struct DevicePiece {
  BufferView input;    // count elements from input.offset (STORAGE_BUFFER usage); may be empty if count == 0
  BufferView output;   // count elements from output.offset; may be exactly the input (in place)
  uint64_t count = 0;  // this rank's elements; 0 is allowed (an empty piece)
  BufferView temp;     // optional (buffer VK_NULL_HANDLE: the Context's scratch): temp memory of the caller's
                       // for the local reduce and scan, mpi::temp_requirements<T> bytes from temp.offset
};

// What DevicePiece::temp must hold for scan<T> (and reduce<T>) of `piece` with `config`: the larger of
// the local reduce's and the local scan's temp, and the usages both need. Size 0: no temp needed.
template <Element T>
TempRequirements temp_requirements(const Context& ctx, const DevicePiece& piece, ScanConfig config = {});

// Where the time of one call on pieces in GPU buffers went, in milliseconds of host steady_clock, for
// finding per-call overhead (gpuscan_mpi_bench --breakdown). Pass a pointer as the call's last argument
// to have it filled; timing adds two GPU timestamps to each submission and nothing else.
struct SubmitTimes {
  double record = 0;  // recording the command buffer (pipelines are looked up, or built on first use, here)
  double submit = 0;  // vkQueueSubmit, with the queue lock
  double wait = 0;    // from the submit's return until the fence signalled (2 ms polling, then blocking)
  double gpu = 0;     // between timestamps at the start and end of the command buffer; 0 without timestamps
};
struct StepTimes {
  double scratch = 0;   // taking the Context's scratch buffers (a lock; an allocation when they grow)
  SubmitTimes reduce;   // the local reduce and its one-element readback
  double exchange = 0;  // the one MPI_Allgather after it: same call everywhere, errors, every rank's total
                        // (includes waiting for the slowest rank to get there)
  SubmitTimes scan;     // the local scan with the carry-in (scan only)
  double agree = 0;     // the MPI_Allreduce after the local scan: did any rank's scan fail? (scan only)
  double total = 0;     // the whole call
};

// Scan of the distributed array in GPU buffers, as the host-span scan: on return piece.output holds this
// rank's part of the scan of the whole array. Blocks until the GPU is done (two submissions to ctx's
// queue, one fence wait each). Temp memory (the reduce's tile totals, the scan's temp, one readback
// element) is DevicePiece::temp when the caller gives one, else the Context's scratch, allocated when a
// call needs more than earlier calls did and kept; the readback element is always the Context's, and
// command pools and fences are the Context's too, so repeated calls allocate nothing.
//
// Barrier contract. Before the call: the writes to piece.input, and any use of piece.output, were
// either submitted earlier to ctx.queue() or finished (waited on with a fence) if they ran on another
// queue; gpuscan's first command is a full memory barrier (all commands -> compute shader and
// transfer), so earlier submissions on ctx's queue need no barrier of the caller's. Host writes to
// mapped memory need only be flushed (non-coherent memory) before the call. After the call: the GPU
// work is complete and the results in piece.output are available and visible to every later command
// on ctx's queue and to host reads of mapped memory (gpuscan's last command is a barrier from its
// compute writes to all commands and the host): no barrier is needed after it on the same queue.
// On error (bad views, a device error on any rank) every rank throws, and piece.output is undefined.
//
//   // rank 0: in = [3, 1] on its GPU   rank 1: count 0   rank 2: in = [7, 0, 4]
//   gpuscan::mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, {.input = in, .output = out, .count = n});
//   // rank 0: out = [0, 3]             rank 1: nothing   rank 2: out = [4, 11, 11]
template <Element T>
void scan(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, ScanConfig config = {},
          StepTimes* times = nullptr);
template <Element T>
void exclusive_scan(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, ScanConfig config = {},
                    StepTimes* times = nullptr) {
  config.kind = ScanKind::exclusive;
  scan<T>(ctx, comm, piece, config, times);
}
template <Element T>
void inclusive_scan(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, ScanConfig config = {},
                    StepTimes* times = nullptr) {
  config.kind = ScanKind::inclusive;
  scan<T>(ctx, comm, piece, config, times);
}

// The combination of the distributed array in GPU buffers (piece.input, piece.count; piece.output is not
// used), returned on every rank. Barrier contract before the call as scan's; it writes nothing of the
// caller's.
//   // pieces [3, 1] | (empty) | [7, 0, 4] on the ranks' GPUs
//   gpuscan::mpi::reduce<uint32_t>(ctx, MPI_COMM_WORLD, {.input = in, .count = n}, gpuscan::Op::max)  // 7
template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, const DevicePiece& piece, Op op = Op::add, StepTimes* times = nullptr);

// A piece in GPU buffers to compact (select_if / select_flagged below); views as record_select_if's.
struct DeviceSelectPiece {
  BufferView input;      // count elements from input.offset
  BufferView flags;      // select_flagged: count u32 flags (kept where non-zero); unused by select_if
  BufferView output;     // room for count elements (Rebalance::equal: for this rank's share); [0, kept) is
                         // written, the rest left as it was
  BufferView count_out;  // optional (buffer VK_NULL_HANDLE = none): one u32, this rank's kept count, left on
                         // the GPU (for ScanArgs::count_from, say); needs VK_BUFFER_USAGE_TRANSFER_DST_BIT
  uint64_t count = 0;    // this rank's elements; 0 is allowed (views may then be empty)
};

// Where this rank's kept elements sit in the whole result.
struct DeviceSelection {
  uint64_t kept = 0;           // elements this rank kept, in output[0, kept)
  uint64_t global_offset = 0;  // index of output[0] in the whole result (rank order)
  uint64_t global_count = 0;   // elements kept on all ranks together
};

// Stream compaction of the distributed array in GPU buffers, as the host-span select_if / select_flagged:
// each rank compacts its piece on its GPU (record_select_if / record_select_flagged into its output),
// reads back its kept count (one u32), and one MPI_Allgather of the counts gives its global offset and
// the global count. Blocks until the GPU is done; temp memory is the Context's reusable scratch.
// Barrier contract as scan's on DevicePiece: earlier submissions on ctx's queue need no barrier before
// the call, and afterwards output and count_out are visible to every later command on the queue and to
// the host.
//
// Rebalance::equal: afterwards output[0, kept) holds this rank's equal share of the whole result (as the
// host-span form: global elements [r·K/P, (r+1)·K/P)) and count_out its size. The elements travel
// through host memory: each rank copies its kept elements into a host-visible buffer allocated for the
// call, MPI_Alltoallv moves them, and each rank copies its share back (two PCIe copies of the kept
// elements, three submissions). The output buffer then needs TRANSFER_SRC and TRANSFER_DST usage and
// room for the share, which may exceed count (an empty piece can receive elements); a rank without room
// throws Errc::buffer_too_small on every rank before anything moves. At most 2^31 - 1 elements per rank
// (Errc::too_large on every rank).
//
//   // rank 0: in = [5, 1, 7]   rank 1: count 0   rank 2: in = [9, 2]
//   auto r = gpuscan::mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD,
//                                              {.input = in, .output = out, .count = n},
//                                              gpuscan::Predicate::greater(4u));
//   // rank 0: out[0, 2) = [5, 7], r = {2, 0, 3}   rank 1: {0, 2, 3}   rank 2: out[0, 1) = [9], {1, 2, 3}
//   // with Rebalance::equal: rank 0: out[0, 1) = [5], {1, 0, 3}   rank 1: [7], {1, 1, 3}   rank 2: [9], {1, 2, 3}
template <Element T>
DeviceSelection select_if(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece, Predicate predicate,
                          CompactConfig config = {}, Rebalance rebalance = Rebalance::none);
template <Element T>
DeviceSelection select_flagged(const Context& ctx, MPI_Comm comm, const DeviceSelectPiece& piece,
                               CompactConfig config = {}, Rebalance rebalance = Rebalance::none);

#define GPUSCAN_MPI_DECLARE(T)                                                                   \
  extern template std::vector<T> scan(const Context&, MPI_Comm, std::span<const T>, ScanConfig); \
  extern template T reduce(const Context&, MPI_Comm, std::span<const T>, Op);                    \
  extern template void scan<T>(const Context&, MPI_Comm, const DevicePiece&, ScanConfig, StepTimes*); \
  extern template T reduce<T>(const Context&, MPI_Comm, const DevicePiece&, Op, StepTimes*);          \
  extern template TempRequirements temp_requirements<T>(const Context&, const DevicePiece&, ScanConfig);
GPUSCAN_MPI_DECLARE(uint32_t)
GPUSCAN_MPI_DECLARE(int32_t)
GPUSCAN_MPI_DECLARE(float)
GPUSCAN_MPI_DECLARE(uint64_t)
GPUSCAN_MPI_DECLARE(int64_t)
GPUSCAN_MPI_DECLARE(double)
#undef GPUSCAN_MPI_DECLARE

extern template Selection<uint32_t> select_if(const Context&, MPI_Comm, std::span<const uint32_t>, Predicate,
                                              CompactConfig, Rebalance);
extern template Selection<int32_t> select_if(const Context&, MPI_Comm, std::span<const int32_t>, Predicate,
                                             CompactConfig, Rebalance);
extern template Selection<float> select_if(const Context&, MPI_Comm, std::span<const float>, Predicate,
                                           CompactConfig, Rebalance);
extern template Selection<uint32_t> select_flagged(const Context&, MPI_Comm, std::span<const uint32_t>,
                                                   std::span<const uint32_t>, CompactConfig, Rebalance);
extern template Selection<int32_t> select_flagged(const Context&, MPI_Comm, std::span<const int32_t>,
                                                  std::span<const uint32_t>, CompactConfig, Rebalance);
extern template Selection<float> select_flagged(const Context&, MPI_Comm, std::span<const float>,
                                                std::span<const uint32_t>, CompactConfig, Rebalance);
#define GPUSCAN_MPI_DECLARE(T)                                                                                    \
  extern template DeviceSelection select_if<T>(const Context&, MPI_Comm, const DeviceSelectPiece&, Predicate,     \
                                               CompactConfig, Rebalance);                                         \
  extern template DeviceSelection select_flagged<T>(const Context&, MPI_Comm, const DeviceSelectPiece&,           \
                                                    CompactConfig, Rebalance);
GPUSCAN_MPI_DECLARE(uint32_t)
GPUSCAN_MPI_DECLARE(int32_t)
GPUSCAN_MPI_DECLARE(float)
#undef GPUSCAN_MPI_DECLARE

}  // namespace gpuscan::mpi
