// What the host-span and GPU-buffer forms of the distributed scan and reduce share: the check that every
// rank makes the same call, the agreed local steps, and the combination of the ranks' totals in rank order
// (MPI_Exscan / MPI_Allreduce with MPI's own operators where they are exact, a gather and an ordered
// combine where they are not). The two forms differ only in how they reduce and scan their own piece.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/reference.hpp"
#include "gpuscan/mpi.hpp"
#include "gpuscan/types.hpp"
#include "mpi/collective.hpp"

namespace gpuscan::mpi::detail {

enum ScanPrimitive : uint32_t { primitive_scan = 3, primitive_reduce = 4 };

inline std::string describe_scan_call(const CallSignature& s) {
  std::string name = s.primitive == primitive_scan ? "scan" : s.primitive == primitive_reduce ? "reduce" : "?";
  name += "<" + std::string(to_string(static_cast<DataType>(s.type))) + ", " +
          std::string(to_string(static_cast<Op>(s.op))) + ">";
  if (s.primitive == primitive_scan) name += s.variant ? " inclusive" : " exclusive";
  return name;
}

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, int64_t>) return MPI_INT64_T;
  else return MPI_DOUBLE;
}

// MPI's predefined operator for `op` on T where its result cannot depend on how MPI associates the
// ranks' values: every operator on integers (wrapping add and mul are associative), min and max on
// floats. Float add and mul are not associative, so they go through ordered_totals instead, and the
// result is the same on every run (as gpuscan's deterministic floats are).
template <class T>
bool predefined_op(Op op, MPI_Op& out) {
  const bool exact = std::is_integral_v<T> || op == Op::min || op == Op::max;
  if (!exact) return false;
  switch (op) {
    case Op::add: out = MPI_SUM; break;
    case Op::mul: out = MPI_PROD; break;
    case Op::min: out = MPI_MIN; break;
    case Op::max: out = MPI_MAX; break;
    case Op::bit_and: out = MPI_BAND; break;
    case Op::bit_or: out = MPI_BOR; break;
    case Op::bit_xor: out = MPI_BXOR; break;
  }
  return true;
}

// Every rank's total, in rank order.
template <class T>
std::vector<T> ordered_totals(MPI_Comm comm, T mine) {
  std::vector<T> all(static_cast<size_t>(size_of(comm)));
  check_mpi(MPI_Allgather(&mine, 1, mpi_type<T>(), all.data(), 1, mpi_type<T>(), comm), "MPI_Allgather");
  return all;
}

// The combination of the totals of the ranks before this one (nullopt on rank 0: nothing before it).
template <class T>
std::optional<T> carry_in(MPI_Comm comm, Op op, T mine) {
  const int rank = rank_of(comm);
  MPI_Op mpi_op;
  if (predefined_op<T>(op, mpi_op)) {
    T before{};
    check_mpi(MPI_Exscan(&mine, &before, 1, mpi_type<T>(), mpi_op, comm), "MPI_Exscan");
    if (rank == 0) return std::nullopt;  // MPI_Exscan leaves rank 0's result undefined
    return before;
  }
  const std::vector<T> all = ordered_totals(comm, mine);
  if (rank == 0) return std::nullopt;
  T before = all[0];
  for (int r = 1; r < rank; ++r) before = cpu::combine(op, before, all[r]);
  return before;
}

// The combination of every rank's total, on every rank.
template <class T>
T combine_all(MPI_Comm comm, Op op, T mine) {
  MPI_Op mpi_op;
  if (predefined_op<T>(op, mpi_op)) {
    T total{};
    check_mpi(MPI_Allreduce(&mine, &total, 1, mpi_type<T>(), mpi_op, comm), "MPI_Allreduce");
    return total;
  }
  const std::vector<T> all = ordered_totals(comm, mine);
  T total = all[0];
  for (size_t r = 1; r < all.size(); ++r) total = cpu::combine(op, total, all[r]);
  return total;
}

inline CallSignature scan_signature(ScanPrimitive p, DataType type, Op op, uint32_t variant) {
  CallSignature s;
  s.primitive = p;
  s.type = static_cast<uint32_t>(type);
  s.op = static_cast<uint32_t>(op);
  s.variant = variant;
  return s;
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

// run_agreed, adding the time of its agreement (all of it but the step's) to *agree when that is set.
inline void run_agreed_timed(MPI_Comm comm, const char* what, const std::function<void()>& step, double* agree) {
  if (!agree) return run_agreed(comm, what, step);
  double inner = 0, outer = 0;
  {
    AddElapsed whole(&outer);
    run_agreed(comm, what, [&] {
      AddElapsed t(&inner);
      step();
    });
  }
  *agree += outer - inner;
}

// The distributed scan, given this rank's two local steps: `local_total` reduces the piece, `local_scan`
// scans it with the carry-in (nullopt on rank 0). Each runs agreed: a failure on one rank throws on all.
template <class T>
void distributed_scan(MPI_Comm comm, const ScanConfig& config, const std::function<T()>& local_total,
                      const std::function<void(std::optional<T>)>& local_scan, StepTimes* times = nullptr) {
  {
    AddElapsed t(times ? &times->check : nullptr);
    require_same_call(comm,
                      scan_signature(primitive_scan, data_type_of<T>::value, config.op,
                                     config.kind == ScanKind::inclusive),
                      describe_scan_call);
  }
  double* agree = times ? &times->agree : nullptr;
  T total{};
  run_agreed_timed(comm, "gpuscan::mpi::scan (local reduce)", [&] { total = local_total(); }, agree);
  std::optional<T> before;
  {
    AddElapsed t(times ? &times->carry : nullptr);
    before = carry_in<T>(comm, config.op, total);
  }
  run_agreed_timed(comm, "gpuscan::mpi::scan (local scan)", [&] { local_scan(before); }, agree);
}

// The distributed reduction, given this rank's local reduction.
template <class T>
T distributed_reduce(MPI_Comm comm, Op op, const std::function<T()>& local_total, StepTimes* times = nullptr) {
  {
    AddElapsed t(times ? &times->check : nullptr);
    require_same_call(comm, scan_signature(primitive_reduce, data_type_of<T>::value, op, 0), describe_scan_call);
  }
  T total{};
  run_agreed_timed(comm, "gpuscan::mpi::reduce (local reduce)", [&] { total = local_total(); },
                   times ? &times->agree : nullptr);
  AddElapsed t(times ? &times->carry : nullptr);
  return combine_all<T>(comm, op, total);
}

}  // namespace gpuscan::mpi::detail
