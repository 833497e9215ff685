// Diagnostic messages from the graphics API underneath gpuscan (Vulkan's validation layers, GL's
// KHR_debug output), handed to the application: every backend's ContextCreateInfo takes a callback.
#pragma once

#include <functional>
#include <string_view>

namespace gpuscan {

enum class MessageSeverity { verbose, info, warning, error };
// Receives one message. Vulkan calls it from its own threads; GL on the thread that made the GL call.
using MessageCallback = std::function<void(MessageSeverity, std::string_view message)>;

}  // namespace gpuscan
