#include "verify.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <limits>
#include <vector>

#include "gpuscan/reference.hpp"
#include "io.hpp"

namespace gpuscan::cli {
namespace {

template <class T>
std::string shortest(T value) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return {buffer, r.ptr};
}

// What a correct result may be at one element: within `tol` of the reference (0: bit for bit, NaN
// matching NaN), or also one of the non-finite values that some order of combining the inputs can
// give (verify.hpp, "Floats").
struct Bound {
  long double tol = 0;
  bool pos_inf = false, neg_inf = false, nan = false;
};

template <class T, class Want>
bool matches(T got, Want want, const Bound& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) return std::isnan(got);  // a NaN or inf - inf among the inputs: every order
    if (b.tol == 0 && !b.pos_inf && !b.neg_inf && !b.nan)
      return std::memcmp(&got, &want, sizeof got) == 0 || got == want;
    if (std::isnan(got)) return b.nan;
    const long double g = got, w = want;
    if (std::isinf(g)) return g == w || (g > 0 ? b.pos_inf : b.neg_inf);
    if (std::isinf(w)) return false;
    return std::fabs(g - w) <= b.tol;
  } else {
    return got == want;
  }
}

// Length differences: the first index past the shorter array.
std::optional<Mismatch> check_lengths(uint64_t got_n, uint64_t want_n) {
  if (got_n == want_n) return std::nullopt;
  Mismatch m;
  m.index = std::min(got_n, want_n);
  m.count = std::max(got_n, want_n) - m.index;
  m.elements = want_n;
  m.got = got_n < want_n ? "nothing (output has " + std::to_string(got_n) + " elements)" : "an extra element";
  m.expected = got_n < want_n ? "an element" : "nothing (input has " + std::to_string(want_n) + " elements)";
  return m;
}

// Compares element by element with `want` within `tolerance(i)`, a Bound (Bound{}: bit for bit).
template <class T, class Want, class Tolerance>
std::optional<Mismatch> compare(std::span<const std::byte> output, const std::vector<T>& got,
                                const std::vector<Want>& want, DataType type, Tolerance tolerance) {
  if (auto m = check_lengths(got.size(), want.size())) return m;
  std::optional<Mismatch> first;
  uint64_t count = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const Bound bound = tolerance(i);
    if (matches(got[i], want[i], bound)) continue;
    if (!first) {
      first.emplace();
      first->index = i;
      first->got = format_element(output, type, i);
      first->expected = shortest(want[i]);
      if (bound.tol > 0) {
        char tol[32];
        std::snprintf(tol, sizeof tol, "%.3Lg", bound.tol);
        first->expected += std::string(" +- ") + tol;
      }
      if (bound.pos_inf || bound.neg_inf || bound.nan)
        first->expected += std::string(" or ") + (bound.nan ? "NaN or " : "") +
                           (bound.pos_inf && bound.neg_inf ? "+-inf" : bound.pos_inf ? "+inf" : "-inf");
    }
    ++count;
  }
  if (first) {
    first->count = count;
    first->elements = want.size();
  }
  return first;
}

// The bounds of verify.hpp, "Floats", element by element of a (segmented) scan of `in` under float add
// or mul: `want` is the reference in the wide type W, starts (empty: one segment) restart the bounds.
template <class T, class W>
std::vector<Bound> float_bounds(std::span<const T> in, std::span<const uint8_t> starts, ScanKind kind, Op op,
                                const std::vector<W>& want) {
  using L = std::numeric_limits<T>;
  using LW = std::numeric_limits<W>;
  const long double max = L::max();
  std::vector<Bound> bounds(in.size());
  // Sums: the depth of the GPU's combination tree (as cpu::float_tolerance), the positive and negative
  // parts combined so far.
  long double depth = 8;
  for (size_t m = in.size(); m > 1; m >>= 1) depth += 2;
  const long double gamma = depth * L::epsilon();
  W pos = 0, neg = 0;
  // Products: the factors so far, log2 of the running product of the finite non-zero ones (L_j), the
  // least and greatest L_j before (L = 0 at the segment's start), and from them the largest and smallest
  // log2 |product| of any run of consecutive factors; whether a zero or an infinity was among them.
  uint64_t factors = 0;
  long double log_product = 0, least = 0, greatest = 0, run_up = 0, run_down = 0;
  bool zero = false, infinity = false;
  auto reset = [&] {
    pos = neg = 0;
    factors = 0;
    log_product = least = greatest = run_up = run_down = 0;
    zero = infinity = false;
  };
  auto add = [&](T x) {
    if (op == Op::add) {
      (x < 0 ? neg : pos) += std::fabs(static_cast<W>(x));
      return;
    }
    ++factors;
    if (x == 0) zero = true;
    if (std::isinf(x)) infinity = true;
    if (x == 0 || !std::isfinite(x)) return;
    log_product += std::log2(std::fabs(static_cast<long double>(x)));
    run_up = std::max(run_up, log_product - least);
    run_down = std::min(run_down, log_product - greatest);
    least = std::min(least, log_product);
    greatest = std::max(greatest, log_product);
  };
  auto sum_bound = [&] {
    Bound b;
    const long double p = pos, n = neg;
    b.tol = gamma * (p + n) + 1e-300L;
    b.pos_inf = p * (1 + gamma) > max;  // some order's partial sum of the positive part may overflow
    b.neg_inf = n * (1 + gamma) > max;
    b.nan = b.pos_inf && b.neg_inf;  // +inf in one part of the tree, -inf in another
    return b;
  };
  // The relative error of k - 1 roundings, each of relative error at most e: (1 + e)^(k - 1) - 1.
  auto compounded = [](uint64_t k, long double e) {
    return k <= 1 ? 0.0L : std::expm1(static_cast<long double>(k - 1) * std::log1p(e));
  };
  // A product of k factors rounds once per multiplication, k - 1 times, whatever the order. A rounding
  // to a normal number is off by at most u = eps / 2 relatively; one to a subnormal by at most half the
  // least subnormal absolutely, which relative to an intermediate product of magnitude R >= 2^run_down
  // (every intermediate of an in-order combination is the product of a run of consecutive factors) is at
  // most denorm_min / (2 R) <= 2^(log2(denorm_min) - run_down) with a factor 2 to spare.
  auto rounding = [&](const auto& limits) {
    const long double u = limits.epsilon() / 2;
    const long double floor = std::log2(static_cast<long double>(limits.min())) + 1;  // margin for rounding
    return run_down < floor ? u + std::exp2(std::log2(static_cast<long double>(limits.denorm_min())) - run_down) : u;
  };
  auto product_bound = [&](W w) {
    Bound b;
    if (factors <= 1) return b;  // the factor itself (or 1): exact
    if (run_up >= std::log2(static_cast<long double>(LW::max())) - 1) {
      b.tol = LW::infinity();  // past even the reference's range: not checked
      b.pos_inf = b.neg_inf = b.nan = true;
      return b;
    }
    const long double rel_t = compounded(factors, rounding(L{})), rel_w = compounded(factors, rounding(LW{}));
    b.tol = rel_w < 1 ? (rel_t + rel_w) / (1 - rel_w) * std::fabs(static_cast<long double>(w)) : LW::infinity();
    const bool overflow = run_up >= std::log2(max) - 1;  // a run's product may round past max
    const bool to_zero = run_down < std::log2(static_cast<long double>(L::denorm_min())) + 1;  // ... or to 0
    if (overflow && !zero) {
      b.pos_inf = w == 0 || !std::signbit(w);  // the sign of a product is the same in every order
      b.neg_inf = w == 0 || std::signbit(w);
    }
    b.nan = (overflow && (zero || to_zero)) || (infinity && to_zero);  // 0 * inf in some order
    return b;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || (!starts.empty() && starts[i])) reset();
    if (kind == ScanKind::inclusive) add(in[i]);
    bounds[i] = op == Op::add ? sum_bound() : product_bound(want[i]);
    if (kind == ScanKind::exclusive) add(in[i]);
  }
  return bounds;
}

template <class T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;

template <class T>
std::optional<Mismatch> verify_typed(std::span<const std::byte> input, std::span<const std::byte> output,
                                     DataType type, ScanKind kind, Op op, std::span<const uint8_t> starts) {
  const auto in = values_from_bytes<T>(input);
  const auto got = values_from_bytes<T>(output);
  const bool segmented = !starts.empty();
  // The reference in element type U: the plain scan, or the segmented one.
  auto reference = [&](const auto& values, Op o) {
    using U = typename std::decay_t<decltype(values)>::value_type;
    return segmented ? cpu::segmented_scan<U>(values, starts, kind, o) : cpu::scan<U>(values, kind, o);
  };
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::add || op == Op::mul) {
      const std::vector<Wide<T>> wide(in.begin(), in.end());
      const auto want = reference(wide, op);
      const auto bounds = float_bounds<T>(std::span<const T>(in), starts, kind, op, want);
      return compare(output, got, want, type, [&](size_t i) { return bounds[i]; });
    }
  }
  const auto want = reference(in, op);
  return compare(output, got, want, type, [](size_t) { return Bound{}; });
}

template <class T>
std::optional<Mismatch> verify_reduce_typed(std::span<const std::byte> input, std::span<const std::byte> result,
                                            DataType type, Op op) {
  const auto in = values_from_bytes<T>(input);
  const auto got = values_from_bytes<T>(result);
  if constexpr (std::is_floating_point_v<T>) {
    if ((op == Op::add || op == Op::mul) && !in.empty()) {
      // The bounds of the last element of the inclusive scan, whose value the reduction is.
      const std::vector<Wide<T>> wide(in.begin(), in.end());
      const auto scan = cpu::scan<Wide<T>>(wide, ScanKind::inclusive, op);
      const Bound bound = float_bounds<T>(std::span<const T>(in), {}, ScanKind::inclusive, op, scan).back();
      const std::vector<Wide<T>> want = {scan.back()};
      return compare(result, got, want, type, [&](size_t) { return bound; });
    }
  }
  const std::vector<T> want = {cpu::reduce<T>(in, op)};
  return compare(result, got, want, type, [](size_t) { return Bound{}; });
}

}  // namespace

std::optional<Mismatch> verify_scan(std::span<const std::byte> input, std::span<const std::byte> output,
                                    DataType type, ScanKind kind, Op op, std::span<const uint8_t> starts) {
  return visit_type(type,
                    [&](auto tag) { return verify_typed<decltype(tag)>(input, output, type, kind, op, starts); });
}

std::vector<uint8_t> segment_starts(std::span<const std::byte> heads, uint32_t key_bytes, uint64_t n) {
  if (key_bytes == 0) return cpu::starts_from_flags(values_from_bytes<uint32_t>(heads), n);
  if (key_bytes == 8) return cpu::starts_from_keys<uint64_t>(values_from_bytes<uint64_t>(heads), n);
  return cpu::starts_from_keys<uint32_t>(values_from_bytes<uint32_t>(heads), n);
}

std::optional<Mismatch> verify_reduce(std::span<const std::byte> input, std::span<const std::byte> result,
                                      DataType type, Op op) {
  return visit_type(type, [&](auto tag) { return verify_reduce_typed<decltype(tag)>(input, result, type, op); });
}

int end_summary(std::ostream& err, bool verify, const std::function<std::optional<Mismatch>()>& check) {
  if (!verify) {
    err << '\n';
    return 0;
  }
  const auto mismatch = check();
  err << (mismatch ? ", verification FAILED\n" : ", verified against the CPU reference\n");
  if (mismatch) err << "gpuscan: error: " << to_string(*mismatch) << '\n';
  return mismatch ? 1 : 0;
}

std::string to_string(const Mismatch& m) {
  return "MISMATCH at index " + std::to_string(m.index) + ": got " + m.got + ", expected " + m.expected +
         " (" + std::to_string(m.count) + " of " + std::to_string(m.elements) + " elements differ)";
}

}  // namespace gpuscan::cli
