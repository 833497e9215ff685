// The two rules that keep gpuscan::mpi's collective calls from hanging: every rank checks that all
// ranks entered the same call (same primitive, type and operator) before any other collective, and a
// step that can fail on one rank is followed by an agreement so that then every rank throws.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

namespace gpuscan::mpi::detail {

// What a rank is about to do, as plain integers so it can travel through MPI_Allgather.
struct CallSignature {
  uint32_t primitive = 0;  // an id per public function
  uint32_t type = 0;       // DataType
  uint32_t op = 0;         // operator, predicate kind or 0
  uint32_t variant = 0;    // exclusive/inclusive, rebalance, ...
};

// Throws Error(Errc::invalid_argument) on every rank unless all ranks passed equal signatures;
// `describe` names a signature for the message ("select_if<u32>").
void require_same_call(MPI_Comm comm, const CallSignature& mine,
                       const std::function<std::string(const CallSignature&)>& describe);

// Runs `step` on this rank, then agrees with the others: if it threw anywhere, every rank throws
// (the rank that failed rethrows its own error; the others an Error naming the first failed rank).
void run_agreed(MPI_Comm comm, const char* what, const std::function<void()>& step);

// MPI errors as gpuscan errors (the communicator's handler is MPI_ERRORS_RETURN while gpuscan runs).
void check_mpi(int rc, const char* call);

int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

}  // namespace gpuscan::mpi::detail
