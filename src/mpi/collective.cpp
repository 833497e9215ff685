#include "mpi/collective.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include "gpuscan/compact.hpp"
#include "gpuscan/error.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan::mpi::detail {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(Errc::invalid_argument, std::string(call) + " failed: " + std::string(text, length));
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

namespace {

// What a local step left: nothing, or its exception with the code and message to tell the other ranks.
struct Outcome {
  std::exception_ptr failure;
  int code = static_cast<int>(Errc::invalid_argument);
  std::string message;
};

template <class F>
Outcome run_caught(F&& step) {
  Outcome o;
  try {
    step();
  } catch (const Error& e) {
    o.failure = std::current_exception();
    o.code = e.code().value();
    o.message = e.what();
  } catch (const std::exception& e) {
    o.failure = std::current_exception();
    o.message = e.what();
  } catch (...) {
    o.failure = std::current_exception();
    o.message = "unknown exception";
  }
  return o;
}

// Once every rank knows `first`, the lowest rank whose step failed (size if none): returns if none did;
// otherwise that rank tells the others its error code and message, and every rank throws.
void throw_if_any_failed(MPI_Comm comm, const char* what, int first, Outcome& mine) {
  if (first == size_of(comm)) return;
  constexpr int max_message = 1024;
  mine.message.resize(std::min<size_t>(mine.message.size(), max_message));
  int length = static_cast<int>(mine.message.size());
  check_mpi(MPI_Bcast(&mine.code, 1, MPI_INT, first, comm), "MPI_Bcast");
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast");
  mine.message.resize(static_cast<size_t>(length));
  check_mpi(MPI_Bcast(mine.message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast");
  if (mine.failure) std::rethrow_exception(mine.failure);
  throw Error(static_cast<Errc>(mine.code),
              std::string(what) + " failed on rank " + std::to_string(first) + ": " + mine.message);
}

// "select_if<u32> with predicate greater, Rebalance::none", "scan<f32, add> inclusive".
std::string describe(const CallSignature& s) {
  const std::string type(to_string(static_cast<DataType>(s.type)));
  switch (s.primitive) {
    case primitive_select_if:
    case primitive_select_flagged: {
      std::string name = s.primitive == primitive_select_if ? "select_if<" + type + ">" : "select_flagged<" + type + ">";
      if (s.primitive == primitive_select_if)
        name += " with predicate " + std::string(to_string(static_cast<PredicateKind>(s.op)));
      return name + (s.variant ? ", Rebalance::equal" : ", Rebalance::none");
    }
    case primitive_scan:
    case primitive_reduce: {
      std::string name = (s.primitive == primitive_scan ? "scan<" : "reduce<") + type + ", " +
                         std::string(to_string(static_cast<Op>(s.op))) + ">";
      if (s.primitive == primitive_scan) name += s.variant ? " inclusive" : " exclusive";
      return name;
    }
    default:
      return "primitive " + std::to_string(s.primitive);
  }
}

// One rank's part of gather_after_step's exchange.
struct CallRecord {
  CallSignature call;
  uint32_t failed = 0;
  uint32_t unused = 0;
  uint64_t result = 0;
};

}  // namespace

std::vector<uint64_t> gather_after_step(MPI_Comm comm, const CallSignature& mine, const char* what,
                                        const std::function<uint64_t()>& step) {
  static_assert(sizeof(CallRecord) == 32);
  CallRecord record;
  record.call = mine;
  Outcome outcome = run_caught([&] { record.result = step(); });
  record.failed = outcome.failure ? 1 : 0;
  const int size = size_of(comm);
  std::vector<CallRecord> all(static_cast<size_t>(size));
  check_mpi(MPI_Allgather(&record, sizeof record, MPI_BYTE, all.data(), sizeof record, MPI_BYTE, comm), "MPI_Allgather");
  // Every rank reads the same records, so all throw the same way: first a mismatch, then a failure.
  for (size_t r = 1; r < all.size(); ++r) {
    const CallSignature& a = all[0].call;
    const CallSignature& b = all[r].call;
    if (a.primitive != b.primitive || a.type != b.type || a.op != b.op || a.variant != b.variant)
      throw Error(Errc::invalid_argument, "ranks disagree on the collective call: rank 0 called " + describe(a) +
                                              ", rank " + std::to_string(r) + " called " + describe(b) +
                                              "; every rank must make the same gpuscan::mpi call");
  }
  int first = size;
  for (int r = size - 1; r >= 0; --r)
    if (all[static_cast<size_t>(r)].failed) first = r;
  throw_if_any_failed(comm, what, first, outcome);
  std::vector<uint64_t> results(all.size());
  for (size_t r = 0; r < all.size(); ++r) results[r] = all[r].result;
  return results;
}

void run_agreed(MPI_Comm comm, const char* what, const std::function<void()>& step) {
  Outcome outcome = run_caught(step);
  // The lowest failed rank (size if none) tells the others its error code and message.
  const int size = size_of(comm);
  const int mine = outcome.failure ? rank_of(comm) : size;
  int first = size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  throw_if_any_failed(comm, what, first, outcome);
}

}  // namespace gpuscan::mpi::detail
