// Distributed stream compaction with gpuscan::mpi: every rank holds one piece of an array (here rank r
// holds 1000 + 700·r elements), compacts it on its own GPU, and learns where its kept elements sit in
// the global result; then the result is rebalanced so every rank holds an equal share.
// Run: mpirun -np 3 build/examples/mpi_compact
#include <mpi.h>

#include <cstdint>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <gpuscan/mpi.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  try {
    const gpuscan::Context ctx = gpuscan::mpi::create_context(MPI_COMM_WORLD);  // one device per rank
    // The global array is 0, 1, 2, ...: rank r holds the piece that starts where rank r-1's ends.
    const uint32_t size = 1000 + 700 * static_cast<uint32_t>(rank);
    uint32_t first = 0;
    for (int r = 0; r < rank; ++r) first += 1000 + 700 * static_cast<uint32_t>(r);
    std::vector<uint32_t> piece(size);
    std::iota(piece.begin(), piece.end(), first);

    // Keep the values with bit 3 set (8..15, 24..31, ...): half of them.
    const auto kept = gpuscan::mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, piece,
                                                        gpuscan::Predicate::bits_set(8u));
    const auto balanced = gpuscan::mpi::select_if<uint32_t>(
        ctx, MPI_COMM_WORLD, piece, gpuscan::Predicate::bits_set(8u), {}, gpuscan::mpi::Rebalance::equal);

    // Rank 0 prints what every rank got, gathered, beside what it should be.
    uint64_t mine[4] = {kept.values.size(), kept.global_offset, balanced.values.size(), balanced.global_offset};
    std::vector<uint64_t> all(4 * static_cast<size_t>(ranks));
    MPI_Gather(mine, 4, MPI_UINT64_T, all.data(), 4, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      const uint64_t total = kept.global_count;
      std::cout << "device of rank 0: " << ctx.device_info().name << "; ranks: " << ranks << '\n';
      std::string got, want;
      uint64_t n = 0, offset = 0;
      for (int r = 0; r < ranks; ++r) {
        const uint64_t piece_n = 1000 + 700 * static_cast<uint64_t>(r);
        uint64_t expect = 0;
        for (uint64_t v = n; v < n + piece_n; ++v) expect += (v & 8u) ? 1 : 0;
        got += " rank " + std::to_string(r) + ": " + std::to_string(all[4 * r]) + " at " + std::to_string(all[4 * r + 1]) +
               ", balanced " + std::to_string(all[4 * r + 2]) + " at " + std::to_string(all[4 * r + 3]) + ";";
        const uint64_t share0 = total * r / ranks, share1 = total * (r + 1) / ranks;
        want += " rank " + std::to_string(r) + ": " + std::to_string(expect) + " at " + std::to_string(offset) +
                ", balanced " + std::to_string(share1 - share0) + " at " + std::to_string(share0) + ";";
        n += piece_n;
        offset += expect;
      }
      std::cout << "pieces result:  " << got << '\n' << "pieces expected:" << want << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "mpi_compact on rank " << rank << ": " << e.what() << '\n';
    status = 1;
  }
  MPI_Finalize();
  return status;
}
