// The two rules that keep gpuscan::mpi's collective calls from hanging: every rank checks that all
// ranks entered the same call (same primitive, type and operator) before any other collective, and a
// step that can fail on one rank is followed by an agreement so that then every rank throws.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpuscan::mpi::detail {

// The primitives, as CallSignature::primitive.
enum Primitive : uint32_t { primitive_select_if = 1, primitive_select_flagged = 2, primitive_scan = 3, primitive_reduce = 4 };

// What a rank is about to do, as plain integers so it can travel through MPI_Allgather.
struct CallSignature {
  uint32_t primitive = 0;  // an id per public function
  uint32_t type = 0;       // DataType
  uint32_t op = 0;         // operator, predicate kind or 0
  uint32_t variant = 0;    // exclusive/inclusive, rebalance, ...
};

// Runs `step` (this rank's local work, returning up to 8 bytes of result: its total, its kept count),
// then ONE MPI_Allgather of every rank's signature, whether its step threw, and that result. Throws on
// every rank if the signatures differ (Errc::invalid_argument, naming both calls: "rank 1 called
// select_if<f32> with predicate greater, Rebalance::none") or if a step threw anywhere (as run_agreed); otherwise returns the ranks'
// results in rank order. Every gpuscan::mpi primitive opens with this exchange, so ranks that entered
// different calls meet in the same collective and all throw, and one collective does the work of the
// call check, the error agreement and the exchange of totals or counts.
std::vector<uint64_t> gather_after_step(MPI_Comm comm, const CallSignature& mine, const char* what,
                                        const std::function<uint64_t()>& step);

// Runs `step` on this rank, then agrees with the others: if it threw anywhere, every rank throws
// (the rank that failed rethrows its own error; the others an Error naming the first failed rank).
void run_agreed(MPI_Comm comm, const char* what, const std::function<void()>& step);

// MPI errors as gpuscan errors (the communicator's handler is MPI_ERRORS_RETURN while gpuscan runs).
void check_mpi(int rc, const char* call);

int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

}  // namespace gpuscan::mpi::detail
