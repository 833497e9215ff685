// Compiles a custom operator (a uint sum) with shaderc, so that a consumer's link needs shaderc's archives
// where libgpuscan is static: the package must bring them. Returns false only on a wrong result; a gpuscan
// built without shaderc (Errc::unsupported) passes, saying so.
#pragma once

#include <cstdint>
#include <iostream>

#include <gpuscan/gpuscan.hpp>

inline bool custom_op_check(const gpuscan::Context& ctx) {
  try {
    const uint32_t bytes = gpuscan::compile_custom_op(
        ctx, {"#define T uint\nT identity() { return 0u; }\nT combine(T a, T b) { return a + b; }\n"});
    std::cout << "custom operator compiled: " << bytes << "-byte elements\n";
    if (bytes != 4) std::cerr << "wrong element size: expected 4\n";
    return bytes == 4;
  } catch (const gpuscan::Error& e) {
    if (e.code() != gpuscan::Errc::unsupported) throw;
    std::cout << "custom operators: " << e.what() << '\n';
    return true;
  }
}
