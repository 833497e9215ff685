// Another Context that keeps the device busy with copies while a test runs, so the test's dispatches
// share the device with other work and get scheduled less predictably (stress and determinism tests).
#pragma once

#include <atomic>
#include <thread>

#include "gpu_test_support.hpp"
#include "vulkan/submit.hpp"

namespace gpuscan::test {

// Copies between two buffers of another Context until told to stop, so the scans share the device.
class BusyDevice {
 public:
  BusyDevice() : ctx_(make_validated_context()) {
    constexpr VkDeviceSize bytes = 16u << 20;
    constexpr VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    a_ = vk::OwnedBuffer(ctx_, bytes, usage, vk::MemoryKind::device_local);
    b_ = vk::OwnedBuffer(ctx_, bytes, usage, vk::MemoryKind::device_local);
    thread_ = std::thread([this, bytes] {
      while (!stop_) {
        vk::submit_and_wait(ctx_, [&](VkCommandBuffer cmd) {
          for (int i = 0; i < 8; ++i)
            vk::copy_with_barrier(ctx_, cmd, (i % 2 ? b_ : a_).handle(), (i % 2 ? a_ : b_).handle(), bytes,
                                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        });
        ++batches_;
      }
    });
  }
  ~BusyDevice() {
    stop_ = true;
    thread_.join();
  }
  uint64_t batches() const { return batches_; }

 private:
  Context ctx_;
  vk::OwnedBuffer a_, b_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> batches_{0};
  std::thread thread_;
};

}  // namespace gpuscan::test
