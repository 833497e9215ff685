#include "mpi/collective.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include "gpuscan/error.hpp"

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

void require_same_call(MPI_Comm comm, const CallSignature& mine,
                       const std::function<std::string(const CallSignature&)>& describe) {
  static_assert(sizeof(CallSignature) == 4 * sizeof(uint32_t));
  std::vector<CallSignature> all(static_cast<size_t>(size_of(comm)));
  check_mpi(MPI_Allgather(&mine, 4, MPI_UINT32_T, all.data(), 4, MPI_UINT32_T, comm), "MPI_Allgather");
  for (size_t r = 1; r < all.size(); ++r) {
    const CallSignature& a = all[0];
    const CallSignature& b = all[r];
    if (a.primitive != b.primitive || a.type != b.type || a.op != b.op || a.variant != b.variant)
      throw Error(Errc::invalid_argument, "ranks disagree on the collective call: rank 0 called " + describe(a) +
                                              ", rank " + std::to_string(r) + " called " + describe(b) +
                                              "; every rank must make the same gpuscan::mpi call");
  }
}

void run_agreed(MPI_Comm comm, const char* what, const std::function<void()>& step) {
  std::exception_ptr failure;
  int code = static_cast<int>(Errc::invalid_argument);
  std::string message;
  try {
    step();
  } catch (const Error& e) {
    failure = std::current_exception();
    code = e.code().value();
    message = e.what();
  } catch (const std::exception& e) {
    failure = std::current_exception();
    message = e.what();
  } catch (...) {
    failure = std::current_exception();
    message = "unknown exception";
  }
  // The lowest failed rank (size if none) tells the others its error code and message.
  const int size = size_of(comm);
  const int mine = failure ? rank_of(comm) : size;
  int first = size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return;
  constexpr int max_message = 1024;
  message.resize(std::min<size_t>(message.size(), max_message));
  int length = static_cast<int>(message.size());
  check_mpi(MPI_Bcast(&code, 1, MPI_INT, first, comm), "MPI_Bcast");
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast");
  message.resize(static_cast<size_t>(length));
  check_mpi(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast");
  if (failure) std::rethrow_exception(failure);
  throw Error(static_cast<Errc>(code),
              std::string(what) + " failed on rank " + std::to_string(first) + ": " + message);
}

}  // namespace gpuscan::mpi::detail
