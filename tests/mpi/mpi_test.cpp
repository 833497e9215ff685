// gpuscan::mpi under mpirun (-np 1, 2 and 3 in ctest): every rank runs the same tests in the same order,
// so the collective calls line up. Rank 0 draws the whole array and the piece sizes (uneven, some
// empty) and scatters them; the results are gathered back on rank 0 and compared with a CPU reference
// of the whole array. Each rank's Context runs under the validation layers (GpuTest fails on messages).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "gpuscan/reference.hpp"
#include "gpu_test_support.hpp"
#include "gpuscan/mpi.hpp"

namespace gpuscan::test {
namespace {

int rank() { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
int ranks() { int p; MPI_Comm_size(MPI_COMM_WORLD, &p); return p; }

Context& mpi_context() {
  static std::optional<Context> ctx;
  if (!ctx) {
    ContextCreateInfo info;
    info.enable_validation = true;
    info.on_message = [](MessageSeverity s, std::string_view m) { message_log().add(s, m); };
    ctx.emplace(mpi::create_context(MPI_COMM_WORLD, env::apply(info)));  // GPUSCAN_DEVICE overrides the placement
  }
  return *ctx;
}

// Piece sizes that sum to n: rank 0 draws cut points, so pieces are uneven and may be empty.
std::vector<int> draw_sizes(size_t n, std::mt19937_64& rng, int parts) {
  std::vector<size_t> cuts{0, n};
  for (int i = 1; i < parts; ++i) cuts.push_back(n ? rng() % (n + 1) : 0);
  std::sort(cuts.begin(), cuts.end());
  std::vector<int> sizes;
  for (int i = 0; i < parts; ++i) sizes.push_back(static_cast<int>(cuts[i + 1] - cuts[i]));
  if (parts > 1 && rng() % 3 == 0) {  // now and then one rank empty on purpose
    const int empty = static_cast<int>(rng() % parts), to = (empty + 1) % parts;
    sizes[to] += std::exchange(sizes[empty], 0);
  }
  return sizes;
}

template <class T>
MPI_Datatype bytes_of() {
  static MPI_Datatype t = [] {
    MPI_Datatype d;
    MPI_Type_contiguous(sizeof(T), MPI_BYTE, &d);
    MPI_Type_commit(&d);
    return d;
  }();
  return t;
}

// Rank 0's `whole` cut into pieces of `sizes`; every rank gets its own piece.
template <class T>
std::vector<T> scatter(const std::vector<T>& whole, const std::vector<int>& sizes) {
  std::vector<int> at(sizes.size(), 0);
  std::partial_sum(sizes.begin(), sizes.end() - 1, at.begin() + 1);
  int mine = 0;
  MPI_Scatter(sizes.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<T> piece(static_cast<size_t>(mine));
  MPI_Scatterv(whole.data(), sizes.data(), at.data(), bytes_of<T>(), piece.data(), mine, bytes_of<T>(), 0,
               MPI_COMM_WORLD);
  return piece;
}

// Every rank's `piece` concatenated in rank order, on rank 0 (empty elsewhere).
template <class T>
std::vector<T> gather(const std::vector<T>& piece) {
  const int mine = static_cast<int>(piece.size());
  std::vector<int> sizes(static_cast<size_t>(ranks())), at(sizes.size(), 0);
  MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::partial_sum(sizes.begin(), sizes.end() - 1, at.begin() + 1);
  std::vector<T> whole(rank() == 0 ? static_cast<size_t>(at.back() + sizes.back()) : 0);
  MPI_Gatherv(piece.data(), mine, bytes_of<T>(), whole.data(), sizes.data(), at.data(), bytes_of<T>(), 0,
              MPI_COMM_WORLD);
  return whole;
}

// The seed comes from rank 0 so every rank draws the same sequence of cases.
uint64_t shared_seed() {
  uint64_t seed = rank() == 0 ? fresh_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return seed;
}

class MpiTest : public GpuTest {};

// Sizes around one tile (4096 elements at the default shape) and a few tiles, plus empty arrays.
const size_t kSizes[] = {0, 1, 7, 4095, 4096, 4097, 3 * 4096 + 5, 40000};

template <class T>
void check_select(bool flagged, mpi::Rebalance rebalance, Predicate predicate, std::mt19937_64& rng,
                  double keep_fraction) {
  Context& ctx = mpi_context();
  for (size_t n : kSizes) {
    std::vector<T> whole;
    std::vector<uint32_t> whole_flags;
    std::vector<int> sizes(static_cast<size_t>(ranks()));
    if (rank() == 0) {
      whole = random_values<T>(n, rng);
      std::bernoulli_distribution keep(keep_fraction);
      for (size_t i = 0; i < n; ++i) whole_flags.push_back(keep(rng) ? static_cast<uint32_t>(rng() | 1) : 0u);
      sizes = draw_sizes(n, rng, ranks());
    }
    MPI_Bcast(sizes.data(), ranks(), MPI_INT, 0, MPI_COMM_WORLD);
    const std::vector<T> piece = scatter(whole, sizes);
    const std::vector<uint32_t> flags = scatter(whole_flags, sizes);

    const mpi::Selection<T> got =
        flagged ? mpi::select_flagged<T>(ctx, MPI_COMM_WORLD, piece, flags, {}, rebalance)
                : mpi::select_if<T>(ctx, MPI_COMM_WORLD, piece, predicate, {}, rebalance);

    // Each rank's offset must be where its values start in the gathered whole.
    std::vector<uint64_t> offsets(static_cast<size_t>(ranks())), counts(offsets.size()), totals(offsets.size());
    const uint64_t count = got.values.size();
    MPI_Gather(&got.global_offset, 1, MPI_UINT64_T, offsets.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(&got.global_count, 1, MPI_UINT64_T, totals.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    const std::vector<T> all = gather(got.values);
    if (rank() != 0) continue;

    std::vector<T> expected;
    for (size_t i = 0; i < n; ++i)
      if (flagged ? whole_flags[i] != 0 : predicate(whole[i])) expected.push_back(whole[i]);
    const std::string where = "n=" + std::to_string(n) + " ranks=" + std::to_string(ranks());
    // EXPECT, not ASSERT: rank 0 must not leave the loop early while the others go on to the next case.
    EXPECT_EQ(all.size(), expected.size()) << where;
    for (size_t i = 0; i < std::min(all.size(), expected.size()); ++i)
      if (std::memcmp(&all[i], &expected[i], sizeof(T)) != 0) {
        ADD_FAILURE() << where << ": first difference at " << i;
        break;
      }
    uint64_t running = 0;
    for (int r = 0; r < ranks(); ++r) {
      EXPECT_EQ(totals[r], expected.size()) << where << " rank " << r;
      EXPECT_EQ(offsets[r], running) << where << " rank " << r;
      running += counts[r];
      if (rebalance == mpi::Rebalance::equal) {  // equal shares to within one element
        const uint64_t lo = expected.size() / ranks();
        EXPECT_TRUE(counts[r] == lo || counts[r] == lo + 1) << where << " rank " << r << " holds " << counts[r];
      }
    }
  }
}

TEST_F(MpiTest, SelectIfMatchesCopyIfOnTheWholeArray) {
  std::mt19937_64 rng(shared_seed());
  check_select<uint32_t>(false, mpi::Rebalance::none, Predicate::greater(0x80000000u), rng, 0);
  check_select<int32_t>(false, mpi::Rebalance::none, Predicate::less(-1000), rng, 0);
  check_select<float>(false, mpi::Rebalance::none, Predicate::in_range(-2.0f, 30.0f), rng, 0);
}

TEST_F(MpiTest, SelectFlaggedAtSeveralDensities) {
  std::mt19937_64 rng(shared_seed());
  for (double density : {0.0, 0.01, 0.5, 1.0})
    check_select<uint32_t>(true, mpi::Rebalance::none, {}, rng, density);
}

TEST_F(MpiTest, RebalanceEqualGivesEveryRankItsShare) {
  std::mt19937_64 rng(shared_seed());
  check_select<uint32_t>(false, mpi::Rebalance::equal, Predicate::bits_set(0x10u), rng, 0);
  check_select<float>(true, mpi::Rebalance::equal, {}, rng, 0.3);
}

// Values whose combination is exact in any order: integers as they come; floats for add as small
// integers (sums stay exact), for mul as +-1 and now and then 2 or 1/2 (random_op_values).
template <class T>
std::vector<T> exact_values(size_t n, Op op, std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add) {
      std::vector<T> v(n);
      for (auto& x : v) x = static_cast<T>(static_cast<int>(rng() % 201) - 100);
      return v;
    }
  }
  return random_op_values<T>(n, op, rng);
}

struct TypeOpKind {
  DataType type;
  Op op;
  ScanKind kind;
};

// Scans and reductions of the distributed array against the CPU scan / reduction of the whole array.
TEST_F(MpiTest, ScanAndReduceMatchTheWholeArray) {
  Context& ctx = mpi_context();
  std::mt19937_64 rng(shared_seed());
  const TypeOpKind cases[] = {{DataType::u32, Op::add, ScanKind::exclusive},  {DataType::i32, Op::max, ScanKind::inclusive},
                              {DataType::f32, Op::add, ScanKind::inclusive},  {DataType::u64, Op::add, ScanKind::inclusive},
                              {DataType::i64, Op::min, ScanKind::exclusive},  {DataType::u32, Op::bit_xor, ScanKind::exclusive},
                              {DataType::f64, Op::mul, ScanKind::exclusive},  {DataType::f64, Op::add, ScanKind::exclusive}};
  for (const TypeOpKind& c : cases)
    visit_type(c.type, [&](auto tag) {
      using T = decltype(tag);
      for (size_t n : kSizes) {
        std::vector<T> whole;
        std::vector<int> sizes(static_cast<size_t>(ranks()));
        if (rank() == 0) {
          whole = exact_values<T>(n, c.op, rng);
          sizes = draw_sizes(n, rng, ranks());
        }
        MPI_Bcast(sizes.data(), ranks(), MPI_INT, 0, MPI_COMM_WORLD);
        const std::vector<T> piece = scatter(whole, sizes);
        ScanConfig config;
        config.op = c.op;
        config.kind = c.kind;
        const std::vector<T> got = mpi::scan<T>(ctx, MPI_COMM_WORLD, piece, config);
        EXPECT_EQ(got.size(), piece.size());
        const T total = mpi::reduce<T>(ctx, MPI_COMM_WORLD, piece, c.op);
        T expected_total = rank() == 0 ? cpu::reduce<T>(whole, c.op) : T{};
        MPI_Bcast(&expected_total, sizeof(T), MPI_BYTE, 0, MPI_COMM_WORLD);
        const std::string where = std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
                                  std::string(to_string(c.kind)) + " n=" + std::to_string(n) +
                                  " ranks=" + std::to_string(ranks());
        EXPECT_EQ(std::memcmp(&total, &expected_total, sizeof(T)), 0) << where << ": reduce on rank " << rank();
        const std::vector<T> all = gather(got);
        if (rank() != 0) continue;
        const std::vector<T> expected = cpu::scan<T>(whole, c.kind, c.op);
        EXPECT_EQ(all.size(), expected.size()) << where;
        for (size_t i = 0; i < std::min(all.size(), expected.size()); ++i)
          if (std::memcmp(&all[i], &expected[i], sizeof(T)) != 0) {
            ADD_FAILURE() << where << ": first difference at " << i << ": got " << +all[i] << ", want " << +expected[i];
            break;
          }
      }
    });
}

// Float sums are combined in a fixed order: the same split gives bitwise the same result every run.
TEST_F(MpiTest, FloatScansRepeatBitwise) {
  Context& ctx = mpi_context();
  std::mt19937_64 rng(shared_seed());
  std::vector<int> sizes(static_cast<size_t>(ranks()));
  std::vector<float> whole;
  if (rank() == 0) {
    whole = random_values<float>(40000, rng);  // mixed magnitudes and signs: the order matters
    sizes = draw_sizes(whole.size(), rng, ranks());
  }
  MPI_Bcast(sizes.data(), ranks(), MPI_INT, 0, MPI_COMM_WORLD);
  const std::vector<float> piece = scatter(whole, sizes);
  const std::vector<float> first = mpi::inclusive_scan<float>(ctx, MPI_COMM_WORLD, piece);
  const float first_total = mpi::reduce<float>(ctx, MPI_COMM_WORLD, piece);
  for (int run = 0; run < 5; ++run) {
    const std::vector<float> again = mpi::inclusive_scan<float>(ctx, MPI_COMM_WORLD, piece);
    const float total = mpi::reduce<float>(ctx, MPI_COMM_WORLD, piece);
    EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << "run " << run;
    EXPECT_EQ(std::memcmp(&first_total, &total, sizeof total), 0) << "run " << run;
  }
}

// A device-local buffer of `bytes` (at least 4) holding `values` at byte offset `at` and poison (0xA5)
// everywhere else, uploaded in a submission of its own with no barrier after the copy: the device-piece
// calls' first barrier covers it (their contract in mpi.hpp). Lavapipe runs submissions one after the
// other and this validation layer does not check hazards across submissions, so that barrier is not
// proven necessary here; the test uses the contract as a caller would.
template <class T>
vk::OwnedBuffer device_buffer(const Context& ctx, size_t bytes, const std::vector<T>& values, VkDeviceSize at) {
  bytes = std::max<size_t>(bytes, 4);
  constexpr VkBufferUsageFlags usage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  vk::OwnedBuffer buffer(ctx, bytes, usage, vk::MemoryKind::device_local);
  HostBuffer<std::byte> staging(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  poison(staging.data(), bytes);
  if (!values.empty()) std::memcpy(staging.data() + at, values.data(), values.size() * sizeof(T));
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, staging.view().buffer, buffer.handle(), 1, &region);
  });
  return buffer;
}

// `count` elements of `buffer` from byte offset `at`, copied out in a submission that places no barrier
// before the copy: the device-piece call's last barrier must cover it.
template <class T>
std::vector<T> download(const Context& ctx, const vk::OwnedBuffer& buffer, size_t count, VkDeviceSize at) {
  std::vector<T> out(count);
  if (count == 0) return out;
  HostBuffer<T> staging(ctx, count * sizeof(T), VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    const VkBufferCopy region{at, 0, count * sizeof(T)};
    vkCmdCopyBuffer(cmd, buffer.handle(), staging.view().buffer, 1, &region);
    vk::memory_barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
  });
  std::memcpy(out.data(), staging.data(), count * sizeof(T));
  return out;
}

struct DeviceCase {
  DataType type;
  Op op;
  ScanKind kind;
  bool in_place;
};

// Scans and reductions of pieces in GPU buffers (mpi::DevicePiece) against the CPU scan of the whole
// array: uneven pieces, some empty (given as empty views), the output at an offset inside a poisoned
// buffer (the elements around it must stay poisoned), and in-place scans.
TEST_F(MpiTest, DevicePiecesMatchTheWholeArray) {
  Context& ctx = mpi_context();
  std::mt19937_64 rng(shared_seed());
  const DeviceCase cases[] = {{DataType::u32, Op::add, ScanKind::exclusive, false},
                              {DataType::u32, Op::add, ScanKind::inclusive, true},
                              {DataType::i64, Op::max, ScanKind::exclusive, false},
                              {DataType::i64, Op::max, ScanKind::inclusive, false},
                              {DataType::f32, Op::add, ScanKind::exclusive, false},
                              {DataType::f32, Op::add, ScanKind::inclusive, true},
                              {DataType::i32, Op::min, ScanKind::inclusive, false},
                              {DataType::f64, Op::mul, ScanKind::exclusive, false}};
  size_t round = 0;
  for (const DeviceCase& c : cases)
    visit_type(c.type, [&](auto tag) {
      using T = decltype(tag);
      for (size_t n : kSizes) {
        const bool caller_temp = round++ % 2 == 1;  // every other run brings its own (poisoned) temp
        std::vector<T> whole;
        std::vector<int> sizes(static_cast<size_t>(ranks()));
        if (rank() == 0) {
          whole = exact_values<T>(n, c.op, rng);
          sizes = draw_sizes(n, rng, ranks());
        }
        MPI_Bcast(sizes.data(), ranks(), MPI_INT, 0, MPI_COMM_WORLD);
        const std::vector<T> piece = scatter(whole, sizes);
        const size_t count = piece.size();
        const VkDeviceSize out_at = 64;  // output elements start here; poisoned elements follow them too
        const size_t out_bytes = out_at + (count + 3) * sizeof(T);
        const vk::OwnedBuffer in = device_buffer(ctx, count * sizeof(T), piece, 0);
        const vk::OwnedBuffer out =
            c.in_place ? vk::OwnedBuffer{} : device_buffer(ctx, out_bytes, std::vector<T>{}, 0);
        mpi::DevicePiece dp;
        dp.count = count;
        if (count) {  // an empty piece passes empty views
          dp.input = in.view();
          dp.output = c.in_place ? in.view() : out.view(out_at);
        }
        ScanConfig config;
        config.op = c.op;
        config.kind = c.kind;
        const VkDeviceSize temp_at = 256;
        const TempRequirements temp_req = mpi::temp_requirements<T>(ctx, dp, config);
        const vk::OwnedBuffer temp =
            caller_temp ? device_buffer(ctx, temp_at + temp_req.size, std::vector<T>{}, 0) : vk::OwnedBuffer{};
        if (caller_temp) dp.temp = temp.view(temp_at);
        mpi::scan<T>(ctx, MPI_COMM_WORLD, dp, config);
        std::vector<T> got, after;
        if (c.in_place) {
          got = download<T>(ctx, in, count, 0);
        } else {
          const std::vector<T> around = download<T>(ctx, out, out_bytes / sizeof(T), 0);
          got.assign(around.begin() + out_at / sizeof(T), around.begin() + out_at / sizeof(T) + count);
          std::vector<T> poisoned(1);
          poison(poisoned.data(), sizeof(T));
          for (size_t i = 0; i < around.size(); ++i)
            if ((i < out_at / sizeof(T) || i >= out_at / sizeof(T) + count) &&
                std::memcmp(&around[i], &poisoned[0], sizeof(T)) != 0) {
              ADD_FAILURE() << "rank " << rank() << ": element " << i << " outside the output was written";
              break;
            }
        }
        const std::string where = std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " " +
                                  std::string(to_string(c.kind)) + (c.in_place ? " in place" : "") +
                                  " n=" + std::to_string(n) + " ranks=" + std::to_string(ranks());
        // Reduce of the input pieces on the GPU against the CPU reduce of the whole array.
        const vk::OwnedBuffer again = device_buffer(ctx, count * sizeof(T), piece, 0);
        const T reduced =
            mpi::reduce<T>(ctx, MPI_COMM_WORLD, {count ? again.view() : BufferView{}, {}, count, dp.temp}, c.op);
        T expected_total = rank() == 0 ? cpu::reduce<T>(whole, c.op) : T{};
        MPI_Bcast(&expected_total, sizeof(T), MPI_BYTE, 0, MPI_COMM_WORLD);
        EXPECT_EQ(std::memcmp(&reduced, &expected_total, sizeof(T)), 0) << where << ": reduce on rank " << rank();

        const std::vector<T> all = gather(got);
        if (rank() != 0) continue;
        const std::vector<T> expected = cpu::scan<T>(whole, c.kind, c.op);
        EXPECT_EQ(all.size(), expected.size()) << where;
        for (size_t i = 0; i < std::min(all.size(), expected.size()); ++i)
          if (std::memcmp(&all[i], &expected[i], sizeof(T)) != 0) {
            ADD_FAILURE() << where << ": first difference at " << i << ": got " << +all[i] << ", want " << +expected[i];
            break;
          }
      }
    });
}

// Compaction of pieces in GPU buffers (mpi::DeviceSelectPiece) against std::copy_if of the whole array:
// the kept elements, gathered in rank order, the offsets and counts, the count left in count_out (when
// one is given), and the output past the kept elements left poisoned. With Rebalance::equal each rank's
// output has room for the whole array (an empty piece may receive elements), every rank must hold its
// equal share, and the output is poisoned past both the piece and the share.
template <class T>
void check_device_select(bool flagged, Predicate predicate, std::mt19937_64& rng, double keep_fraction,
                         bool with_count_buffer, mpi::Rebalance rebalance = mpi::Rebalance::none) {
  const bool equal = rebalance == mpi::Rebalance::equal;
  Context& ctx = mpi_context();
  for (size_t n : kSizes) {
    std::vector<T> whole;
    std::vector<uint32_t> whole_flags;
    std::vector<int> sizes(static_cast<size_t>(ranks()));
    if (rank() == 0) {
      whole = random_values<T>(n, rng);
      std::bernoulli_distribution keep(keep_fraction);
      for (size_t i = 0; i < n; ++i) whole_flags.push_back(keep(rng) ? static_cast<uint32_t>(rng() | 1) : 0u);
      sizes = draw_sizes(n, rng, ranks());
    }
    MPI_Bcast(sizes.data(), ranks(), MPI_INT, 0, MPI_COMM_WORLD);
    const std::vector<T> piece = scatter(whole, sizes);
    const std::vector<uint32_t> flags = scatter(whole_flags, sizes);
    const size_t count = piece.size();
    const vk::OwnedBuffer in = device_buffer(ctx, count * sizeof(T), piece, 0);
    const vk::OwnedBuffer flag_buffer = device_buffer(ctx, count * sizeof(uint32_t), flags, 0);
    const size_t room = equal ? n : count;
    const vk::OwnedBuffer out = device_buffer(ctx, (room + 3) * sizeof(T), std::vector<T>{}, 0);
    const vk::OwnedBuffer kept_count = device_buffer(ctx, 4, std::vector<uint32_t>{}, 0);
    mpi::DeviceSelectPiece dp;
    dp.count = count;
    if (count) {
      dp.input = in.view();
      dp.flags = flag_buffer.view();
    }
    if (room) dp.output = out.view();
    if (with_count_buffer) dp.count_out = kept_count.view();
    const mpi::DeviceSelection got = flagged ? mpi::select_flagged<T>(ctx, MPI_COMM_WORLD, dp, {}, rebalance)
                                             : mpi::select_if<T>(ctx, MPI_COMM_WORLD, dp, predicate, {}, rebalance);
    const std::vector<T> around = download<T>(ctx, out, room + 3, 0);
    const std::vector<uint32_t> counted = download<uint32_t>(ctx, kept_count, 1, 0);
    const std::string where = "n=" + std::to_string(n) + " ranks=" + std::to_string(ranks()) + " rank " +
                              std::to_string(rank());
    EXPECT_LE(got.kept, room) << where;
    if (with_count_buffer) EXPECT_EQ(counted[0], got.kept) << where << ": count_out";
    const size_t kept = std::min<size_t>(got.kept, room);
    std::vector<T> poisoned(1);
    poison(poisoned.data(), sizeof(T));
    // Rebalance::equal may leave this rank's own kept elements in [share, count) behind.
    for (size_t i = equal ? std::max(kept, count) : kept; i < around.size(); ++i)
      if (std::memcmp(&around[i], &poisoned[0], sizeof(T)) != 0) {
        ADD_FAILURE() << where << ": output element " << i << " past the kept ones was written";
        break;
      }
    const std::vector<T> all = gather(std::vector<T>(around.begin(), around.begin() + kept));
    std::vector<uint64_t> offsets(static_cast<size_t>(ranks())), counts(offsets.size()), totals(offsets.size());
    MPI_Gather(&got.global_offset, 1, MPI_UINT64_T, offsets.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(&got.kept, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(&got.global_count, 1, MPI_UINT64_T, totals.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank() != 0) continue;
    std::vector<T> expected;
    for (size_t i = 0; i < n; ++i)
      if (flagged ? whole_flags[i] != 0 : predicate(whole[i])) expected.push_back(whole[i]);
    EXPECT_EQ(all.size(), expected.size()) << where;
    for (size_t i = 0; i < std::min(all.size(), expected.size()); ++i)
      if (std::memcmp(&all[i], &expected[i], sizeof(T)) != 0) {
        ADD_FAILURE() << where << ": first difference at " << i;
        break;
      }
    uint64_t running = 0;
    for (int r = 0; r < ranks(); ++r) {
      EXPECT_EQ(totals[r], expected.size()) << where << " from rank " << r;
      EXPECT_EQ(offsets[r], running) << where << " from rank " << r;
      if (equal)  // rank r's share: [r·K/P, (r+1)·K/P)
        EXPECT_EQ(counts[r], expected.size() * (r + 1) / ranks() - expected.size() * r / ranks())
            << where << " from rank " << r;
      running += counts[r];
    }
  }
}

TEST_F(MpiTest, DeviceSelectionsMatchCopyIf) {
  std::mt19937_64 rng(shared_seed());
  check_device_select<uint32_t>(false, Predicate::greater(0x80000000u), rng, 0, true);
  check_device_select<int32_t>(false, Predicate::less(-1000), rng, 0, false);
  check_device_select<float>(true, {}, rng, 0.3, true);
  check_device_select<uint32_t>(true, {}, rng, 1.0, false);
}

TEST_F(MpiTest, DeviceSelectionsRebalanceIntoEqualShares) {
  std::mt19937_64 rng(shared_seed());
  check_device_select<uint32_t>(false, Predicate::greater(0x40000000u), rng, 0, true, mpi::Rebalance::equal);
  check_device_select<float>(true, {}, rng, 0.1, false, mpi::Rebalance::equal);
  check_device_select<int32_t>(true, {}, rng, 1.0, true, mpi::Rebalance::equal);
}

// Rebalance::equal where one rank's output has no room for its share (its own piece is empty, so the
// local compaction passes): every rank throws Errc::buffer_too_small before anything moves.
TEST_F(MpiTest, ARebalanceWithoutRoomThrowsOnEveryRank) {
  if (ranks() < 2) GTEST_SKIP() << "needs two ranks";
  Context& ctx = mpi_context();
  const int bad = ranks() - 1;
  const std::vector<uint32_t> values{5, 6, 7, 8};
  const vk::OwnedBuffer in = device_buffer(ctx, 16, values, 0);
  const vk::OwnedBuffer out = device_buffer(ctx, 16, std::vector<uint32_t>{}, 0);
  mpi::DeviceSelectPiece dp{in.view(), {}, out.view(), {}, 4};
  if (rank() == bad) {
    dp.count = 0;
    dp.output.buffer_size = 4;  // room for one element; its share of the 4 (P - 1) kept is at least 2
  }
  try {
    mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, dp, Predicate::greater(0u), {}, mpi::Rebalance::equal);
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::buffer_too_small)) << e.what();
    if (rank() != bad)
      EXPECT_NE(std::string(e.what()).find("failed on rank " + std::to_string(bad)), std::string::npos) << e.what();
  }
}

// mpi::StepTimes of a device-piece scan: the steps fit inside the whole call, both submissions of a
// non-empty piece were recorded, submitted and (with timestamps) timed on the GPU, and an empty piece
// (rank 1) submits nothing. Ones in, so rank r's last inclusive sum counts the non-empty pieces up to it.
TEST_F(MpiTest, StepTimesAddUpToTheCall) {
  Context& ctx = mpi_context();
  const size_t count = rank() == 1 ? 0 : 50000;
  const vk::OwnedBuffer in = device_buffer(ctx, count * 4, std::vector<uint32_t>(count, 1), 0);
  mpi::DevicePiece dp{count ? in.view() : BufferView{}, count ? in.view() : BufferView{}, count};
  mpi::StepTimes t;
  t.total = -1;  // the call resets every field first
  mpi::inclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, dp, {}, &t);
  const double parts = t.scratch + t.reduce.record + t.reduce.submit + t.reduce.wait + t.exchange + t.scan.record +
                       t.scan.submit + t.scan.wait + t.agree;
  EXPECT_GT(t.total, 0);
  EXPECT_LE(parts, t.total * 1.001 + 1e-3);
  if (count == 0) {
    EXPECT_EQ(t.reduce.submit + t.reduce.wait + t.scan.submit + t.scan.wait, 0);
    return;
  }
  for (const mpi::SubmitTimes* s : {&t.reduce, &t.scan}) {
    EXPECT_GT(s->record, 0);
    EXPECT_GT(s->submit + s->wait, 0);
    if (ctx.device_info().timestamp_period_ns > 0) EXPECT_GT(s->gpu, 0);
  }
  const std::vector<uint32_t> got = download<uint32_t>(ctx, in, count, 0);  // and the scan still ran
  EXPECT_EQ(got.back(), static_cast<uint32_t>(count * (rank() == 0 ? 1 : rank())));
}

// A device piece whose output is too small on one rank, then a count buffer without TRANSFER_DST on
// one rank: every rank throws, none hangs, and the communicator stays usable.
TEST_F(MpiTest, ABadDevicePieceThrowsOnEveryRank) {
  Context& ctx = mpi_context();
  const int bad = ranks() - 1;
  const std::vector<uint32_t> values{5, 6, 7, 8};
  const vk::OwnedBuffer in = device_buffer(ctx, 16, values, 0);
  const vk::OwnedBuffer out = device_buffer(ctx, 16, std::vector<uint32_t>{}, 0);
  BufferView small = out.view();
  if (rank() == bad) small.buffer_size = 8;  // room for two elements, not four
  try {
    mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, {in.view(), small, 4});
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::buffer_too_small)) << e.what();
    if (rank() != bad)
      EXPECT_NE(std::string(e.what()).find("failed on rank " + std::to_string(bad)), std::string::npos) << e.what();
  }
  mpi::inclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, {in.view(), out.view(), 4});
  const std::vector<uint32_t> got = download<uint32_t>(ctx, out, 4, 0);
  const uint32_t before = 26u * static_cast<uint32_t>(rank());
  EXPECT_EQ(got, (std::vector<uint32_t>{before + 5, before + 11, before + 18, before + 26}));

  // A caller's temp too small on one rank (a piece of 2^17 needs temp with every algorithm).
  const size_t big = size_t{1} << 17;
  const vk::OwnedBuffer big_in = device_buffer(ctx, big * 4, std::vector<uint32_t>(big, 1), 0);
  const vk::OwnedBuffer temp = device_buffer(ctx, 64, std::vector<uint32_t>{}, 0);
  mpi::DevicePiece with_temp{big_in.view(), big_in.view(), big};
  if (rank() == bad) with_temp.temp = temp.view();
  try {
    mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, with_temp);
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::buffer_too_small)) << e.what();
    if (rank() == bad) EXPECT_NE(std::string(e.what()).find("DevicePiece::temp"), std::string::npos) << e.what();
  }

  // A compaction whose count buffer cannot be copied into (no TRANSFER_DST) on one rank.
  const vk::OwnedBuffer count = device_buffer(ctx, 4, std::vector<uint32_t>{}, 0);
  BufferView count_view = count.view();
  if (rank() == bad) count_view.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  try {
    mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, {in.view(), {}, out.view(), count_view, 4}, Predicate::greater(6u));
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::missing_usage)) << e.what();
    if (rank() != bad)
      EXPECT_NE(std::string(e.what()).find("failed on rank " + std::to_string(bad)), std::string::npos) << e.what();
  }
}

TEST_F(MpiTest, PlacementTakesADeviceOfTheBestKind) {
  const mpi::Placement p = mpi::place(MPI_COMM_WORLD);
  EXPECT_GE(p.local_rank, 0);
  EXPECT_LT(p.local_rank, p.local_size);
  EXPECT_FALSE(p.device_name.empty());
  EXPECT_EQ(mpi_context().device_info().index, p.device_index);
}

// Ranks that disagree on the call throw on every rank instead of hanging in mismatched collectives.
TEST_F(MpiTest, MismatchedCallsThrowOnEveryRank) {
  if (ranks() < 2) GTEST_SKIP() << "needs two ranks";
  Context& ctx = mpi_context();
  const std::vector<uint32_t> u{1, 2, 3};
  const std::vector<float> f{1, 2, 3};
  try {
    if (rank() == 1)
      mpi::select_if<float>(ctx, MPI_COMM_WORLD, f, Predicate::greater(1.0f));
    else
      mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, u, Predicate::greater(1u));
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::invalid_argument));
    EXPECT_NE(std::string(e.what()).find("rank 1 called select_if<f32>"), std::string::npos) << e.what();
  }
  try {  // a scan whose operator differs on one rank
    ScanConfig config;
    config.op = rank() == 1 ? Op::max : Op::add;
    mpi::scan<uint32_t>(ctx, MPI_COMM_WORLD, u, config);
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 called scan<u32, max>"), std::string::npos) << e.what();
  }
  try {  // different primitives: each opens with the same exchange, so both ranks meet there and throw
    if (rank() == 1)
      mpi::exclusive_scan<uint32_t>(ctx, MPI_COMM_WORLD, std::span<const uint32_t>(u));
    else
      mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, u, Predicate::greater(1u));
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::invalid_argument));
    EXPECT_NE(std::string(e.what()).find("rank 1 called scan<u32, add> exclusive"), std::string::npos) << e.what();
  }
  try {  // same primitive and type, different rebalancing
    mpi::select_if<uint32_t>(ctx, MPI_COMM_WORLD, u, Predicate::greater(1u), {},
                             rank() == 0 ? mpi::Rebalance::equal : mpi::Rebalance::none);
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::invalid_argument));
  }
}

// A local failure on one rank (flags shorter than the values) is reported on every rank.
TEST_F(MpiTest, ALocalFailureThrowsOnEveryRank) {
  Context& ctx = mpi_context();
  const int bad = ranks() - 1;
  const std::vector<uint32_t> values{5, 6, 7, 8};
  const std::vector<uint32_t> flags(rank() == bad ? 2 : 4, 1u);
  try {
    mpi::select_flagged<uint32_t>(ctx, MPI_COMM_WORLD, values, flags);
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::invalid_argument)) << e.what();
    if (rank() != bad)
      EXPECT_NE(std::string(e.what()).find("failed on rank " + std::to_string(bad)), std::string::npos) << e.what();
  }
  // The communicator is still usable afterwards.
  const auto ok = mpi::select_flagged<uint32_t>(ctx, MPI_COMM_WORLD, values, std::vector<uint32_t>(4, 1u));
  EXPECT_EQ(ok.global_count, 4u * static_cast<uint64_t>(ranks()));
}

}  // namespace
}  // namespace gpuscan::test

namespace {
// On ranks other than 0 gtest's own printer is removed (one progress report is enough); this prints
// their failures, prefixed with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 prints gtest's progress; every rank's failures still print.
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(r));
  }
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
