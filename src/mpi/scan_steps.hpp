// What the host-span and GPU-buffer forms of the distributed scan and reduce share: the local reduce,
// then one exchange (gather_after_step: the same-call check, the error agreement and every rank's
// total in one MPI_Allgather), the totals combined in rank order on every rank, and, for the scan, the
// local scan with the combination of the totals before this rank as its carry-in and an agreement
// after it. The two forms differ only in how they reduce and scan their own piece.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuscan/reference.hpp"
#include "gpuscan/mpi.hpp"
#include "gpuscan/types.hpp"
#include "mpi/collective.hpp"

namespace gpuscan::mpi::detail {

inline CallSignature scan_signature(Primitive p, DataType type, Op op, uint32_t variant) {
  CallSignature s;
  s.primitive = p;
  s.type = static_cast<uint32_t>(type);
  s.op = static_cast<uint32_t>(op);
  s.variant = variant;
  return s;
}

// The value whose element_bits are `bits`.
template <class T>
T from_bits(uint64_t bits) {
  T value;
  if constexpr (sizeof(T) == 4) {
    const uint32_t low = static_cast<uint32_t>(bits);
    std::memcpy(&value, &low, sizeof value);
  } else {
    std::memcpy(&value, &bits, sizeof value);
  }
  return value;
}

// The combination of ranks [0, end)'s totals in rank order (nullopt if end is 0). The same order on every
// rank and every run, so float results repeat bitwise; integer operators are exact in any order, and
// min and max too, so this equals what MPI_Exscan / MPI_Allreduce would give.
template <class T>
std::optional<T> combine_in_order(const std::vector<uint64_t>& totals, Op op, size_t end) {
  if (end == 0) return std::nullopt;
  T combined = from_bits<T>(totals[0]);
  for (size_t r = 1; r < end; ++r) combined = cpu::combine(op, combined, from_bits<T>(totals[r]));
  return combined;
}

// Adds the host time of its lifetime to *slot (nothing when slot is null): StepTimes' fields.
class AddElapsed {
 public:
  explicit AddElapsed(double* slot) : slot_(slot) {}
  AddElapsed(const AddElapsed&) = delete;
  AddElapsed& operator=(const AddElapsed&) = delete;
  ~AddElapsed() {
    if (slot_) *slot_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  double* slot_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// `run(step)` (gather_after_step or run_agreed around a step), adding the time of all of it but the
// step's to *rest when that is set: the MPI part of a local step and its exchange.
template <class R, class Run, class Step>
R time_around(double* rest, Run&& run, Step&& step) {
  if (!rest) return run(step);
  double inner = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto timed_step = [&] {
    AddElapsed t(&inner);
    return step();
  };
  if constexpr (std::is_void_v<R>) {
    run(timed_step);
    *rest += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() - inner;
  } else {
    R result = run(timed_step);
    *rest += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() - inner;
    return result;
  }
}

// This rank's total and every rank's, after the opening exchange (one collective).
template <class T>
std::vector<uint64_t> exchange_totals(MPI_Comm comm, const CallSignature& call, const char* what,
                                      const std::function<T()>& local_total, double* exchange_time) {
  return time_around<std::vector<uint64_t>>(
      exchange_time,
      [&](auto&& step) { return gather_after_step(comm, call, what, step); },
      [&] { return element_bits(local_total()); });
}

// The distributed scan, given this rank's two local steps: `local_total` reduces the piece, `local_scan`
// scans it with the carry-in (nullopt on rank 0). Two collectives: the exchange after the reduce and
// the agreement after the scan, so a failure on one rank throws on all.
template <class T>
void distributed_scan(MPI_Comm comm, const ScanConfig& config, const std::function<T()>& local_total,
                      const std::function<void(std::optional<T>)>& local_scan, StepTimes* times = nullptr) {
  const CallSignature call =
      scan_signature(primitive_scan, data_type_of<T>::value, config.op, config.kind == ScanKind::inclusive);
  const std::vector<uint64_t> totals = exchange_totals<T>(comm, call, "gpuscan::mpi::scan (local reduce)",
                                                          local_total, times ? &times->exchange : nullptr);
  const std::optional<T> before = combine_in_order<T>(totals, config.op, static_cast<size_t>(rank_of(comm)));
  time_around<void>(
      times ? &times->agree : nullptr,
      [&](auto&& step) { run_agreed(comm, "gpuscan::mpi::scan (local scan)", step); },
      [&] { local_scan(before); });
}

// The distributed reduction, given this rank's local reduction: one collective.
template <class T>
T distributed_reduce(MPI_Comm comm, Op op, const std::function<T()>& local_total, StepTimes* times = nullptr) {
  const std::vector<uint64_t> totals =
      exchange_totals<T>(comm, scan_signature(primitive_reduce, data_type_of<T>::value, op, 0),
                         "gpuscan::mpi::reduce (local reduce)", local_total, times ? &times->exchange : nullptr);
  return *combine_in_order<T>(totals, op, totals.size());
}

}  // namespace gpuscan::mpi::detail
