#include "gpu_test_support.hpp"

#include <cstdlib>
#include <map>
#include <optional>

namespace gpuscan::test {
namespace {

std::optional<Context> g_context;
std::map<std::string, Context> g_cached;  // cached_context
std::mutex g_cached_mutex;

// Creates the shared context before the tests and checks, after destroying it, that shutdown raised
// no validation message either (objects left alive would).
class ContextEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    {
      std::lock_guard lock(g_cached_mutex);
      g_cached.clear();
    }
    g_context.reset();
    for (const std::string& m : message_log().take()) ADD_FAILURE() << "validation at shutdown: " << m;
  }
};

const auto* registered = ::testing::AddGlobalTestEnvironment(new ContextEnvironment);

}  // namespace

MessageLog& message_log() {
  static MessageLog log;
  return log;
}

Context make_validated_context(ContextCreateInfo info, const TestHooks& hooks) {
  info = env::apply(std::move(info));  // GPUSCAN_DEVICE, GPUSCAN_TIMEOUT_MS, ... as the CLI reads them
  info.enable_validation = true;
  info.on_message = [](MessageSeverity s, std::string_view m) { message_log().add(s, m); };
  return create_context_for_tests(info, hooks);
}

Context& shared_context() {
  if (!g_context) g_context.emplace(make_validated_context());
  return *g_context;
}

const Context& cached_context(const std::string& key, const std::function<Context()>& make) {
  std::lock_guard lock(g_cached_mutex);
  auto it = g_cached.find(key);
  if (it == g_cached.end()) it = g_cached.emplace(key, make()).first;
  return it->second;
}

const Context& context_with(Addressing addressing) {
  return cached_context("addressing " + std::string(to_string(addressing)), [&] {
    ContextCreateInfo info;
    info.addressing = addressing;
    return make_validated_context(info);
  });
}

uint64_t fresh_seed() {
  if (const char* s = std::getenv("GPUSCAN_SEED")) return std::strtoull(s, nullptr, 0);
  return (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
}

void expect_recording_error(const Context& ctx, const std::function<void(VkCommandBuffer)>& record, Errc code,
                            const std::string& fragment) {
  bool thrown = false;
  vk::submit_and_wait(ctx, [&](VkCommandBuffer cmd) {
    try {
      record(cmd);
    } catch (const Error& e) {
      thrown = true;
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << fragment << "\"";
    }
  });
  EXPECT_TRUE(thrown) << "no error for a case that must fail (" << fragment << ")";
}

}  // namespace gpuscan::test
