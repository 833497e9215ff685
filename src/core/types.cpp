#include "gpuscan/compact.hpp"
#include "gpuscan/segmented.hpp"
#include "gpuscan/types.hpp"

namespace gpuscan {

namespace {
constexpr DataType all_types[] = {DataType::u32, DataType::i32, DataType::f32,
                                  DataType::u64, DataType::i64, DataType::f64};
constexpr Op all_ops[] = {Op::add, Op::min, Op::max, Op::mul, Op::bit_and, Op::bit_or, Op::bit_xor};
}  // namespace

uint32_t element_size(DataType type) noexcept {
  return type == DataType::u64 || type == DataType::i64 || type == DataType::f64 ? 8 : 4;
}

bool is_float(DataType type) noexcept { return type == DataType::f32 || type == DataType::f64; }

bool op_supports(Op op, DataType type) noexcept {
  const bool bitwise = op == Op::bit_and || op == Op::bit_or || op == Op::bit_xor;
  return !bitwise || !is_float(type);
}

std::string_view to_string(DataType type) noexcept {
  switch (type) {
    case DataType::u32: return "u32";
    case DataType::i32: return "i32";
    case DataType::f32: return "f32";
    case DataType::u64: return "u64";
    case DataType::i64: return "i64";
    case DataType::f64: return "f64";
  }
  return "?";
}

std::string_view to_string(Op op) noexcept {
  switch (op) {
    case Op::add: return "add";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::mul: return "mul";
    case Op::bit_and: return "and";
    case Op::bit_or: return "or";
    case Op::bit_xor: return "xor";
  }
  return "?";
}

std::string_view to_string(ScanKind kind) noexcept {
  return kind == ScanKind::inclusive ? "inclusive" : "exclusive";
}

std::string_view to_string(WorkgroupAlgorithm a) noexcept {
  switch (a) {
    case WorkgroupAlgorithm::automatic: return "auto";
    case WorkgroupAlgorithm::blelloch: return "blelloch";
    case WorkgroupAlgorithm::subgroup: return "subgroup";
  }
  return "?";
}

std::string_view to_string(Algorithm a) noexcept {
  switch (a) {
    case Algorithm::automatic: return "auto";
    case Algorithm::single_pass: return "single-pass";
    case Algorithm::reduce_then_scan: return "reduce-then-scan";
    case Algorithm::multipass: return "multipass";
    case Algorithm::look_ahead: return "look-ahead";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) noexcept {
  for (auto a : {Algorithm::automatic, Algorithm::single_pass, Algorithm::reduce_then_scan, Algorithm::multipass,
                 Algorithm::look_ahead})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

std::optional<DataType> parse_data_type(std::string_view name) noexcept {
  for (DataType t : all_types)
    if (name == to_string(t)) return t;
  return std::nullopt;
}

std::optional<Op> parse_op(std::string_view name) noexcept {
  for (Op op : all_ops)
    if (name == to_string(op)) return op;
  return std::nullopt;
}

std::optional<WorkgroupAlgorithm> parse_workgroup_algorithm(std::string_view name) noexcept {
  for (auto a : {WorkgroupAlgorithm::automatic, WorkgroupAlgorithm::blelloch, WorkgroupAlgorithm::subgroup})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

std::string_view to_string(PredicateKind kind) noexcept {
  switch (kind) {
    case PredicateKind::nonzero: return "nonzero";
    case PredicateKind::equal: return "equal";
    case PredicateKind::not_equal: return "not_equal";
    case PredicateKind::less: return "less";
    case PredicateKind::less_equal: return "less_equal";
    case PredicateKind::greater: return "greater";
    case PredicateKind::greater_equal: return "greater_equal";
    case PredicateKind::bits_set: return "bits_set";
    case PredicateKind::in_range: return "in_range";
    case PredicateKind::run_start: return "run_start";
  }
  return "?";
}

std::string_view to_string(CompactAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case CompactAlgorithm::automatic: return "auto";
    case CompactAlgorithm::three_pass: return "three-pass";
    case CompactAlgorithm::single_pass: return "single-pass";
  }
  return "?";
}

std::optional<CompactAlgorithm> parse_compact_algorithm(std::string_view name) noexcept {
  for (CompactAlgorithm a : {CompactAlgorithm::automatic, CompactAlgorithm::three_pass, CompactAlgorithm::single_pass})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

std::string_view to_string(CompactPath path) noexcept {
  switch (path) {
    case CompactPath::automatic: return "auto";
    case CompactPath::ballot: return "ballot";
    case CompactPath::shared_memory: return "shared-memory";
  }
  return "?";
}

std::string_view to_string(SegmentHeads heads) noexcept {
  switch (heads) {
    case SegmentHeads::flags: return "flags";
    case SegmentHeads::keys_u32: return "u32 keys";
    case SegmentHeads::keys_u64: return "u64 keys";
  }
  return "?";
}

}  // namespace gpuscan
