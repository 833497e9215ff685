// The #if / #elif conditions of the shaders (shaders/), evaluated on defined-ness alone: defined(X) or
// defined X, combined with !, &&, || and parentheses. glsl_assemble.cpp needs no more, and anything else
// (a number, a comparison, a macro's value) is refused rather than guessed at.
#pragma once

#include <functional>
#include <string_view>

namespace gpuscan::core {

// Throws Error(Errc::unsupported, "internal: ...") on anything but the forms above.
bool evaluate_glsl_condition(std::string_view condition, const std::function<bool(std::string_view)>& is_defined);

}  // namespace gpuscan::core
