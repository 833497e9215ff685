// Custom operators in tests of both backends: an operator as GLSL with the same operator in C++, its
// CPU fold, and a byte-exact comparison of results.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gpuscan/types.hpp"

namespace gpuscan::test {

// An operator as GLSL and the same operator in C++.
template <class T>
struct Operator {
  std::string glsl;
  T identity;
  std::function<T(const T&, const T&)> combine;
};

// identity ⊕ x0 ⊕ ... folded left to right, exclusive or inclusive.
template <class T>
std::vector<T> reference(const std::vector<T>& in, ScanKind kind, const Operator<T>& op) {
  std::vector<T> out(in.size());
  T acc = op.identity;
  for (size_t i = 0; i < in.size(); ++i) {
    if (kind == ScanKind::exclusive) out[i] = acc;
    acc = op.combine(acc, in[i]);
    if (kind == ScanKind::inclusive) out[i] = acc;
  }
  return out;
}

template <class T>
::testing::AssertionResult same_bytes(const std::vector<T>& got, const std::vector<T>& expected) {
  if (got.size() != expected.size()) return ::testing::AssertionFailure() << "size " << got.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "element " << i << " of " << got.size() << " differs";
  return ::testing::AssertionSuccess();
}

}  // namespace gpuscan::test
