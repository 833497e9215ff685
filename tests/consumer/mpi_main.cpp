// Uses gpuscan::mpi from an installed gpuscan through find_package(gpuscan CONFIG COMPONENTS mpi): every
// rank holds {3,1,7,0,4,1,6,3}; the exclusive scan across ranks must give rank r the local scan
// {0,3,4,11,11,15,16,22} plus 25·r. Exits 0 on every rank only if every rank's result is right.
#include <mpi.h>

#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include <gpuscan/mpi.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int ok = 0;
  try {
    const gpuscan::Context ctx = gpuscan::mpi::create_context(MPI_COMM_WORLD);
    const std::vector<uint32_t> piece = {3, 1, 7, 0, 4, 1, 6, 3};
    const auto out = gpuscan::mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, piece);
    std::vector<uint32_t> expected = {0, 3, 4, 11, 11, 15, 16, 22};
    for (uint32_t& v : expected) v += 25u * static_cast<uint32_t>(rank);

    std::cout << "gpuscan::mpi rank " << rank << ": exclusive_scan =";
    for (uint32_t v : out) std::cout << ' ' << v;
    std::cout << '\n';
    ok = out == expected ? 1 : 0;
    if (!ok) std::cerr << "rank " << rank << ": wrong result\n";
  } catch (const gpuscan::Error& e) {
    std::cerr << "rank " << rank << ": gpuscan error: " << e.what() << '\n';
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
