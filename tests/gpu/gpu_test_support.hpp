// Shared by the GPU tests: one validated Context per process (VK_LAYER_KHRONOS_validation with
// synchronization validation), a fixture that fails any test during which a validation warning or
// error arrived, host-visible buffers to drive the recording API, and random data.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "gpuscan/gpuscan.hpp"
#include "gpuscan/testing.hpp"
#include "gpuscan_env.hpp"
#include "vulkan/memory.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::test {

// Collects validation messages; any warning or error fails the running test.
class MessageLog {
 public:
  void add(MessageSeverity severity, std::string_view message) {
    if (severity != MessageSeverity::warning && severity != MessageSeverity::error) return;
    std::lock_guard lock(mutex_);
    messages_.emplace_back(message);
  }
  std::vector<std::string> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(messages_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
};

MessageLog& message_log();
// A Context with validation enabled whose messages go to message_log(), with `hooks` (gpuscan/testing.hpp).
Context make_validated_context(ContextCreateInfo info = {}, const TestHooks& hooks = {});
// The process-wide validated Context (created on first use, destroyed by the test environment).
Context& shared_context();
// The Context cached under `key`, made by `make` on first use and destroyed by the test environment's
// teardown (recreated if tests run again). Contexts kept in statics instead are destroyed during static
// destruction, which can outlive the validation layer's own state and crash the process at exit
// (seen with Debian's 1.3.239 layer).
const Context& cached_context(const std::string& key, const std::function<Context()>& make);
// A validated Context with `addressing` (one per value, created on first use, kept for the process).
const Context& context_with(Addressing addressing);
// What the caller's buffers need for Addressing::device_address.
inline constexpr VkBufferUsageFlags addressable =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

// Runs `record` on a real command buffer and expects it to throw gpuscan::Error `code` with `fragment` in
// its message (the misuse tests).
void expect_recording_error(const Context& ctx, const std::function<void(VkCommandBuffer)>& record, Errc code,
                            const std::string& fragment);

class GpuTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& m : message_log().take()) ADD_FAILURE() << "validation: " << m;
  }
};

// A host-visible storage buffer holding `count` elements of T, readable and writable from the host.
template <class T>
struct HostBuffer {
  vk::OwnedBuffer buffer;
  HostBuffer(const Context& ctx, size_t bytes,
             VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)
      : buffer(ctx, bytes, usage, vk::MemoryKind::host_visible) {}
  T* data() const { return static_cast<T*>(buffer.mapped()); }
  BufferView view(VkDeviceSize offset = 0) const { return buffer.view(offset); }
};

// Poison: a byte pattern no correct scan of the test data is likely to produce.
inline void poison(void* p, size_t bytes) { std::memset(p, 0xA5, bytes); }

// A seed drawn fresh for every run; failures print it so a run can be replayed with GPUSCAN_SEED.
uint64_t fresh_seed();

template <class T>
std::vector<T> random_values(size_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    // Mixed magnitudes and signs: sign * [1, 2) * 2^[-10, 10].
    std::uniform_real_distribution<T> mant(1, 2);
    std::uniform_int_distribution<int> exp(-10, 10);
    for (auto& x : v) x = std::ldexp(mant(rng), exp(rng)) * ((rng() & 1) ? T(1) : T(-1));
  } else {
    // Full range: sums wrap, which the reference reproduces.
    for (auto& x : v) x = static_cast<T>(rng());
  }
  return v;
}

// `v` with one to three NaNs of different kinds (quiet and signalling, either sign, with payloads) at
// random positions in its second half, so the first half still tests min/max themselves: float min and
// max propagate NaN (include/gpuscan/types.hpp), and every NaN must count, whatever its bits.
template <class T>
std::vector<T> with_nans(std::vector<T> v, std::mt19937_64& rng) {
  static_assert(std::is_floating_point_v<T>);
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr int mantissa = std::numeric_limits<T>::digits - 1;
  constexpr Bits exponent = ((Bits{1} << (sizeof(T) * 8 - 1 - mantissa)) - 1) << mantissa;
  const Bits kinds[] = {exponent | Bits{1} << (mantissa - 1),                       // the quiet NaN
                        exponent | Bits{1},                                         // signalling
                        Bits{1} << (sizeof(T) * 8 - 1) | exponent | Bits{0x5a5a}};  // negative, a payload
  if (v.empty()) return v;
  const size_t count = 1 + rng() % 3;
  for (size_t i = 0; i < count; ++i) {
    const size_t at = v.size() / 2 + rng() % (v.size() - v.size() / 2);
    const Bits bits = kinds[rng() % 3];
    std::memcpy(&v[at], &bits, sizeof(T));
  }
  return v;
}

// Test data that keeps a scan under `op` informative all along instead of saturating in its first few
// elements:
//   and: all ones with, rarely, one bit cleared; or: zero with, rarely, one bit set (so the running
//   value changes now and then for thousands of elements);
//   integer mul: odd values (a product of odd numbers is odd, never 0, and wraps);
//   float mul: +-1, with now and then a 2 followed by a 1/2, so every partial product is +-1 or +-2:
//   exact, in range at any length, and independent of the order of combination;
//   the rest (add, min, max, xor): random_values.
template <class T>
std::vector<T> random_op_values(size_t n, Op op, std::mt19937_64& rng) {
  std::vector<T> v = random_values<T>(n, rng);
  constexpr int bits = static_cast<int>(sizeof(T) * 8);
  for (auto& x : v) {
    const uint64_t r = rng();
    const bool rare = r % 64 == 0;
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const U bit = static_cast<U>(U(1) << ((r >> 8) % bits));
      if (op == Op::bit_and) x = static_cast<T>(rare ? static_cast<U>(~bit) : static_cast<U>(~U(0)));
      else if (op == Op::bit_or) x = static_cast<T>(rare ? bit : U(0));
      else if (op == Op::mul) x = static_cast<T>(static_cast<U>(x) | U(1));
    } else if (op == Op::mul) {
      x = (r >> 8) & 1 ? T(1) : T(-1);
    }
  }
  if constexpr (std::is_floating_point_v<T>)
    if (op == Op::mul)
      for (size_t i = 0; i + 1 < n; i += 2)
        if (rng() % 32 == 0) {
          v[i] *= T(2);
          v[i + 1] *= T(0.5);
        }
  return v;
}

}  // namespace gpuscan::test
