// Distributed scan and reduce: each rank reduces its piece on its GPU, the ranks' totals are combined
// in rank order (MPI_Exscan / MPI_Allreduce with MPI's own operators where they are exact, a gather and
// an ordered combine where they are not), and each rank scans its piece with the combination of the
// totals before it as the scan's carry-in (ScanArgs::initial_bits), inside the shader.
#include "cpu/reference.hpp"
#include "gpuscan/mpi.hpp"
#include "gpuscan/reduce.hpp"
#include "mpi/collective.hpp"

namespace gpuscan::mpi {

namespace {

enum Primitive : uint32_t { primitive_scan = 3, primitive_reduce = 4 };

std::string describe(const detail::CallSignature& s) {
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
  std::vector<T> all(static_cast<size_t>(detail::size_of(comm)));
  detail::check_mpi(MPI_Allgather(&mine, 1, mpi_type<T>(), all.data(), 1, mpi_type<T>(), comm), "MPI_Allgather");
  return all;
}

// The combination of the totals of the ranks before this one (nullopt on rank 0: nothing before it).
template <class T>
std::optional<T> carry_in(MPI_Comm comm, Op op, T mine) {
  const int rank = detail::rank_of(comm);
  MPI_Op mpi_op;
  if (predefined_op<T>(op, mpi_op)) {
    T before{};
    detail::check_mpi(MPI_Exscan(&mine, &before, 1, mpi_type<T>(), mpi_op, comm), "MPI_Exscan");
    if (rank == 0) return std::nullopt;  // MPI_Exscan leaves rank 0's result undefined
    return before;
  }
  const std::vector<T> all = ordered_totals(comm, mine);
  if (rank == 0) return std::nullopt;
  T before = all[0];
  for (int r = 1; r < rank; ++r) before = cpu::combine(op, before, all[r]);
  return before;
}

template <class T>
T combine_all(MPI_Comm comm, Op op, T mine) {
  MPI_Op mpi_op;
  if (predefined_op<T>(op, mpi_op)) {
    T total{};
    detail::check_mpi(MPI_Allreduce(&mine, &total, 1, mpi_type<T>(), mpi_op, comm), "MPI_Allreduce");
    return total;
  }
  const std::vector<T> all = ordered_totals(comm, mine);
  T total = all[0];
  for (size_t r = 1; r < all.size(); ++r) total = cpu::combine(op, total, all[r]);
  return total;
}

detail::CallSignature signature(Primitive p, DataType type, Op op, uint32_t variant) {
  detail::CallSignature s;
  s.primitive = p;
  s.type = static_cast<uint32_t>(type);
  s.op = static_cast<uint32_t>(op);
  s.variant = variant;
  return s;
}

}  // namespace

template <Element T>
std::vector<T> scan(const Context& ctx, MPI_Comm comm, std::span<const T> piece, ScanConfig config) {
  config.type = data_type_of<T>::value;
  detail::require_same_call(comm, signature(primitive_scan, config.type, config.op, config.kind == ScanKind::inclusive),
                            describe);
  T total{};
  detail::run_agreed(comm, "gpuscan::mpi::scan (local reduce)",
                     [&] { total = gpuscan::reduce<T>(ctx, piece, config.op); });
  const std::optional<T> before = carry_in<T>(comm, config.op, total);
  std::vector<T> out;
  detail::run_agreed(comm, "gpuscan::mpi::scan (local scan)", [&] {
    out = before ? gpuscan::scan<T>(ctx, piece, config, *before) : gpuscan::scan<T>(ctx, piece, config);
  });
  return out;
}

template <Element T>
T reduce(const Context& ctx, MPI_Comm comm, std::span<const T> piece, Op op) {
  detail::require_same_call(comm, signature(primitive_reduce, data_type_of<T>::value, op, 0), describe);
  T total{};
  detail::run_agreed(comm, "gpuscan::mpi::reduce (local reduce)", [&] { total = gpuscan::reduce<T>(ctx, piece, op); });
  return combine_all<T>(comm, op, total);
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
