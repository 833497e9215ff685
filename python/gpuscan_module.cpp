// The `gpuscan` Python module: GPU prefix scans and reductions of numpy arrays through gpuscan's
// convenience calls, stream compaction (compact, partition, unique, run-length encoding), radix sort,
// histograms and segmented scans and reductions, for dtypes uint32, int32, float32, uint64, int64 and
// float64; bool and 8- and 16-bit integers go through a 32- or 64-bit dtype (Operand below). cumsum,
// cumprod and histogram take numpy's signatures; every function keeps numpy's conventions.
//
//   import numpy as np, gpuscan
//   gpuscan.exclusive_scan(np.array([3, 1, 7, 0], dtype=np.uint32))   # array([ 0,  3,  4, 11], dtype=uint32)
//   gpuscan.inclusive_scan(np.array([-4, 2, -9], dtype=np.int64), op="min")  # array([-4, -4, -9])
//   gpuscan.reduce(np.array([3, 1, 7, 0], dtype=np.uint32), op="max")       # np.uint32(7)
//   with gpuscan.Context(validation=True) as ctx:
//       ctx.inclusive_scan(np.ones(5, dtype=np.float32), algorithm="reduce-then-scan")
//   gpuscan.compact(np.array([5, 0, 7], dtype=np.uint32), "gt:4")      # array([5, 7], dtype=uint32)
//   gpuscan.compact(a, a % 3 == 0)                                      # a[a % 3 == 0], on the GPU
//   gpuscan.cumsum(np.ones((2, 3), bool), axis=1)                       # as np.cumsum: int64
//   gpuscan.histogram(np.array([1, 2, 2, 3], np.float32), bins=2)      # (array([1, 3]), array([1., 2., 3.], dtype=float32))
//   gpuscan.argsort(np.array([2.5, -1.0, 2.5], np.float32))             # array([1, 0, 2]), np.argsort(kind="stable")
//
// Inputs. Every array argument goes through input_array(): anything numpy.asarray takes, in any byte
// order and layout. Positions, counts and lengths come back as numpy's intp (intp_array()).
//
// Errors. Arguments Python can judge by itself raise Python's own exceptions, numpy's types: TypeError
// for an unsupported dtype, ValueError for an array that is not 1-D, bad offsets, bins or lengths, an
// unknown op (or a bitwise op on a float dtype), an unknown algorithm name, or a closed Context; an
// input's shape or values never raise gpuscan.Error. What gpuscan itself reports (no device, an algorithm the device
// cannot run, a limit exceeded, a Vulkan failure, a timeout) raises gpuscan.Error, a RuntimeError with
// `code` (the gpuscan::Errc name, e.g. "no_device"), `vk_result` (e.g. "VK_ERROR_DEVICE_LOST", or None)
// and `message`.
//
// Threads. The GIL is released while the GPU works (and while a Context is created or destroyed), so
// scans on several Python threads overlap; a Context may be shared by threads, as in C++. The module-level
// functions use one Context created on first use, under a lock (see default_context()).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "gpuscan/gpuscan.hpp"
#include "gpuscan/signature.hpp"
#include "gpuscan/vulkan/testing.hpp"
#include "gpuscan_env.hpp"

namespace py = pybind11;

namespace {

// ---------------------------------------------------------------------------------------------------
// gpuscan.Error

PyObject* g_error_type = nullptr;  // a strong reference for the life of the process, never released

const char* errc_name(const std::error_code& code) {
  if (code.category() != gpuscan::error_category()) return "unknown";
  switch (static_cast<gpuscan::Errc>(code.value())) {
    case gpuscan::Errc::invalid_argument: return "invalid_argument";
    case gpuscan::Errc::null_handle: return "null_handle";
    case gpuscan::Errc::buffer_too_small: return "buffer_too_small";
    case gpuscan::Errc::misaligned: return "misaligned";
    case gpuscan::Errc::missing_usage: return "missing_usage";
    case gpuscan::Errc::unsupported: return "unsupported";
    case gpuscan::Errc::too_large: return "too_large";
    case gpuscan::Errc::no_device: return "no_device";
    case gpuscan::Errc::vulkan_error: return "vulkan_error";
    case gpuscan::Errc::io_error: return "io_error";
    case gpuscan::Errc::parse_error: return "parse_error";
    case gpuscan::Errc::timeout: return "timeout";
    case gpuscan::Errc::gl_error: return "gl_error";
    case gpuscan::Errc::compile_error: return "compile_error";
  }
  return "unknown";
}

// Text from C++ (messages, device names) as a Python str, without failing on stray bytes.
py::str to_str(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

void raise_gpuscan_error(const gpuscan::Error& e) {
  py::str message = to_str(e.what());
  py::object error = py::reinterpret_borrow<py::object>(g_error_type)(message);
  error.attr("code") = py::str(errc_name(e.code()));
  const auto* vk = dynamic_cast<const gpuscan::VulkanError*>(&e);
  error.attr("vk_result") = vk ? py::object(py::str(gpuscan::vk_result_name(vk->result()))) : py::object(py::none());
  error.attr("message") = message;
  PyErr_SetObject(g_error_type, error.ptr());
}

// Device arrays (below): whether an argument is one, and the error of calls that do not take them.
class DeviceArray;
const DeviceArray* as_device(const py::handle& h);
[[noreturn]] void not_on_device(const std::string& message);

// ---------------------------------------------------------------------------------------------------
// Arguments

// The names `algorithm=` takes: gpuscan::Algorithm's, plus "blelloch" (multipass with Blelloch workgroup
// scans), as the CLI's --algorithm. Underscores are accepted for hyphens.
constexpr const char* algorithm_names[] = {"auto",     "single-pass", "reduce-then-scan",
                                           "multipass", "blelloch",   "look-ahead"};

constexpr const char* op_names = "'add', 'min', 'max', 'mul', 'and', 'or', 'xor'";

gpuscan::Op parse_op(const std::string& op) {
  const auto parsed = gpuscan::parse_op(op);
  if (!parsed)
    throw py::value_error("unknown op " + std::string(py::repr(py::str(op))) + ": expected one of " + op_names);
  return *parsed;
}

gpuscan::ScanConfig make_config(const std::string& op, std::string algorithm) {
  gpuscan::ScanConfig config;
  config.op = parse_op(op);
  for (char& c : algorithm)
    if (c == '_') c = '-';
  if (algorithm == "blelloch") {
    config.algorithm = gpuscan::Algorithm::multipass;
    config.workgroup = gpuscan::WorkgroupAlgorithm::blelloch;
  } else if (auto a = gpuscan::parse_algorithm(algorithm)) {
    config.algorithm = *a;
  } else {
    std::string names;
    for (const char* n : algorithm_names) names += std::string(names.empty() ? "" : ", ") + "'" + n + "'";
    throw py::value_error("unknown algorithm " + std::string(py::repr(py::str(algorithm))) + ": expected one of " +
                          names);
  }
  return config;
}

// ---------------------------------------------------------------------------------------------------
// Contexts

// Validation messages (warnings and errors), collected from Vulkan's threads, taken from Python.
class MessageStore {
 public:
  static constexpr size_t capacity = 10000;
  void add(gpuscan::MessageSeverity severity, std::string_view message) {
    const char* prefix = severity == gpuscan::MessageSeverity::error     ? "error: "
                         : severity == gpuscan::MessageSeverity::warning ? "warning: "
                                                                          : "info: ";
    std::lock_guard lock(mutex_);
    if (messages_.size() < capacity) messages_.push_back(prefix + std::string(message));
    else ++dropped_;
  }
  std::vector<std::string> take() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out = std::exchange(messages_, {});
    if (dropped_ > 0) out.push_back("(" + std::to_string(std::exchange(dropped_, 0)) + " more messages dropped)");
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  size_t dropped_ = 0;
};

// A gpuscan::Context with its message store. Scans in flight hold a shared_ptr, so closing a Context
// while another thread scans on it destroys it when that scan ends.
struct State {
  std::shared_ptr<MessageStore> messages;
  bool validation = false;
  gpuscan::Context ctx;
  // Set by Context.close(), read and written with the GIL held: device arrays keep the State (their
  // buffers must go before the Context), and raise on use once their Context is closed.
  bool closed = false;
};

std::shared_ptr<State> create_state(std::string selector, bool validation) {
  gpuscan::ContextCreateInfo info;
  info.device_selector = std::move(selector);
  info = gpuscan::env::apply(std::move(info));  // GPUSCAN_DEVICE (unless a device was named), GPUSCAN_TIMEOUT_MS, ...
  info.enable_validation = validation;
  auto messages = std::make_shared<MessageStore>();
  if (validation)
    info.on_message = [messages](gpuscan::MessageSeverity s, std::string_view m) { messages->add(s, m); };
  gpuscan::Context ctx = gpuscan::Context::create(info);
  return std::make_shared<State>(State{std::move(messages), validation, std::move(ctx)});
}

py::dict device_dict(const gpuscan::DeviceInfo& d) {
  py::dict out;
  out["index"] = d.index;
  out["name"] = to_str(d.name);
  out["type"] = to_str(gpuscan::to_string(d.type));
  out["api_version"] = std::to_string(VK_API_VERSION_MAJOR(d.api_version)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(d.api_version)) + "." +
                       std::to_string(VK_API_VERSION_PATCH(d.api_version));
  out["subgroup_size"] = d.subgroup_size;
  out["subgroup_arithmetic"] = d.has_subgroup_arithmetic();
  out["subgroup_ballot"] = d.has_subgroup_ballot();
  out["push_descriptors"] = d.push_descriptors;
  out["single_pass_capable"] = d.single_pass_capable;
  out["shader_int64"] = d.shader_int64;
  out["shader_float64"] = d.shader_float64;
  out["subgroup_extended_types"] = d.subgroup_extended_types;
  out["buffer_device_address"] = d.buffer_device_address;
  out["subgroup_uniform_control_flow"] = d.subgroup_uniform_control_flow;
  out["maximal_reconvergence"] = d.maximal_reconvergence;
  out["max_workgroup_invocations"] = d.max_workgroup_invocations;
  out["max_workgroup_count"] =
      py::make_tuple(d.max_workgroup_count[0], d.max_workgroup_count[1], d.max_workgroup_count[2]);
  out["max_storage_buffer_range"] = d.max_storage_buffer_range;
  out["min_storage_buffer_offset_alignment"] = d.min_storage_buffer_offset_alignment;
  out["max_shared_memory_bytes"] = d.max_shared_memory_bytes;
  out["timestamp_period_ns"] = d.timestamp_period_ns;
  out["shader_cores"] = d.shader_cores;
  out["largest_memory_heap_bytes"] = d.largest_memory_heap_bytes;
  return out;
}

// Every array argument goes through here: `a` (an array, or anything numpy.asarray takes) as a numpy
// array in native byte order, C-contiguous and aligned, a copy only where it is not so already. So
// byte-swapped, strided and unaligned input works alike in every function, and the dtype checks after it
// see native dtypes only.
py::array input_array(const py::object& a, const char* function) {
  py::array array = py::array::ensure(a);
  if (!array) throw py::type_error(std::string(function) + "() needs a numpy array or an object numpy can convert");
  py::object dtype = array.dtype();
  if (!dtype.attr("isnative").cast<bool>()) dtype = dtype.attr("newbyteorder")("=");
  return py::module_::import("numpy").attr("require")(array, dtype, py::make_tuple("C", "A"));
}

// `a` as a contiguous, aligned, native-order array of T (a copy only where it is not so already), and
// a span over it.
template <class T>
py::array_t<T> contiguous(const py::array& a) {
  constexpr int npy_array_aligned = 0x0100;  // NPY_ARRAY_ALIGNED
  auto input = py::array_t<T, py::array::c_style | npy_array_aligned>::ensure(a);
  if (!input) throw py::error_already_set();
  return input;
}

// A 1-D numpy array that owns `out`'s storage, without copying it.
template <class T>
py::array to_numpy(std::vector<T> out) {
  if (out.empty()) return py::array_t<T>(0);
  auto owned = std::make_unique<std::vector<T>>(std::move(out));
  py::capsule base(owned.get(), [](void* p) { delete static_cast<std::vector<T>*>(p); });
  std::vector<T>* v = owned.release();
  return py::array_t<T>({static_cast<py::ssize_t>(v->size())}, {static_cast<py::ssize_t>(sizeof(T))}, v->data(), base);
}

// Positions, counts and lengths go back as numpy's intp, the dtype numpy's own functions give them
// (np.argsort, np.flatnonzero, np.unique's counts, np.histogram's counts).
template <class U>
py::array intp_array(const std::vector<U>& values) {
  py::array_t<std::intptr_t> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

std::span<const std::byte> bytes_of(const py::array& a) {
  return {static_cast<const std::byte*>(a.data()), static_cast<size_t>(a.nbytes())};
}

// Scans `a` (any array-like) on `state`'s device.
template <class T>
py::array scan_typed(std::shared_ptr<State> state, const py::array& a, const gpuscan::ScanConfig& config) {
  const auto input = contiguous<T>(a);
  const std::span<const T> span(input.data(), static_cast<size_t>(input.size()));
  std::vector<T> out;
  {
    py::gil_scoped_release release;
    out = gpuscan::scan<T>(state->ctx, span, config);
    state.reset();  // if the Context was closed meanwhile, it goes now, still without the GIL
  }
  return to_numpy(std::move(out));
}

// Reduces `a` on `state`'s device; the result is a numpy scalar of a's dtype.
template <class T>
py::object reduce_typed(std::shared_ptr<State> state, const py::array& a, gpuscan::Op op) {
  const auto input = contiguous<T>(a);
  const std::span<const T> span(input.data(), static_cast<size_t>(input.size()));
  T result;
  {
    py::gil_scoped_release release;
    result = gpuscan::reduce<T>(state->ctx, span, op);
    state.reset();
  }
  return py::dtype::of<T>().attr("type")(result);
}

std::string dtype_name(const py::dtype& dtype) { return py::str(static_cast<py::handle>(dtype)); }

[[noreturn]] void unsupported_dtype(const py::dtype& dtype, const char* function) {
  const char k = dtype.kind();
  const char* hint = k == 'f' || k == 'c' ? " (convert with a.astype(numpy.float32) or numpy.float64)"
                     : k == 'i'           ? " (convert with a.astype(numpy.int32) or numpy.int64)"
                     : k == 'u'           ? " (convert with a.astype(numpy.uint32) or numpy.uint64)"
                                          : "";
  throw py::type_error(std::string(function) +
                       "() supports arrays of dtype uint32, int32, float32, uint64, int64 and float64 (bool and "
                       "8- and 16-bit integers converted as numpy's accumulate converts them), not " +
                       dtype_name(dtype) + hint);
}

// The gpuscan type of a dtype gpuscan scans as it is (4- or 8-byte unsigned, signed or float; native byte
// order, as input_array makes it), or nothing.
std::optional<gpuscan::DataType> data_type_of(const py::dtype& dtype) {
  using gpuscan::DataType;
  const char k = dtype.kind();
  const bool wide = dtype.itemsize() == 8;
  if (dtype.itemsize() != 4 && !wide) return std::nullopt;
  if (k == 'u') return wide ? DataType::u64 : DataType::u32;
  if (k == 'i') return wide ? DataType::i64 : DataType::i32;
  if (k == 'f') return wide ? DataType::f64 : DataType::f32;
  return std::nullopt;
}

bool native_dtype(const py::dtype& dtype) { return data_type_of(dtype).has_value(); }

// bool and 8- and 16-bit integers: gpuscan runs them on their 32-bit widening (Operand).
bool narrow_dtype(const py::dtype& dtype) {
  const char k = dtype.kind();
  return k == 'b' || ((k == 'u' || k == 'i') && dtype.itemsize() < 4);
}

// The gpuscan type of a 1-D array of a supported dtype; TypeError or ValueError otherwise. An op
// the type lacks (a bitwise op on floats) is a ValueError too.
gpuscan::DataType checked_type(const py::array& array, gpuscan::Op op, const char* function) {
  const py::dtype dtype = array.dtype();
  if (!native_dtype(dtype)) unsupported_dtype(dtype, function);
  if (array.ndim() != 1) {
    std::string shape = py::str(py::tuple(array.attr("shape")));
    throw py::value_error(std::string(function) + "() works on 1-D arrays; this one has " +
                          std::to_string(array.ndim()) + " dimensions, shape " + shape +
                          " (flatten it with a.ravel() to treat it as one sequence)");
  }
  const gpuscan::DataType type = *data_type_of(dtype);
  if (!gpuscan::op_supports(op, type))
    throw py::value_error(std::string(function) + "(): op='" + std::string(gpuscan::to_string(op)) +
                          "' is defined on integer dtypes only, not " + dtype_name(dtype));
  return type;
}

// ---------------------------------------------------------------------------------------------------
// numpy's dtypes: the accumulate rule, and the dtypes gpuscan runs through a wider one

const char* ufunc_name(gpuscan::Op op) {
  switch (op) {
    case gpuscan::Op::add: return "add";
    case gpuscan::Op::min: return "minimum";
    case gpuscan::Op::max: return "maximum";
    case gpuscan::Op::mul: return "multiply";
    case gpuscan::Op::bit_and: return "bitwise_and";
    case gpuscan::Op::bit_or: return "bitwise_or";
    case gpuscan::Op::bit_xor: return "bitwise_xor";
  }
  return "add";
}

// numpy's result dtype for ufunc.accumulate (and ufunc.reduce) of a bool or integer `dtype` under `op`:
// for add and mul, bool and integers narrower than the platform's int_ become int_ or uint (np.cumsum's
// int64 for bool on Linux); the other ops keep the dtype. Asked of numpy itself, on one element, so
// that the answer is the platform's and the numpy version's.
py::dtype accumulate_dtype(const py::dtype& dtype, gpuscan::Op op) {
  const py::module_ numpy = py::module_::import("numpy");
  const py::object one = numpy.attr("zeros")(1, dtype);
  return py::dtype::from_args(numpy.attr(ufunc_name(op)).attr("accumulate")(one).attr("dtype"));
}

// The result dtype of exclusive_scan, inclusive_scan, reduce and segmented_scan: a's own where gpuscan
// has it (int32 sums stay int32 and wrap there, unlike np.cumsum's), else numpy's accumulate dtype, so
// that bool and 8- and 16-bit integers work as in numpy. Other dtypes stay, for checked_type's TypeError.
py::dtype result_dtype(const py::dtype& dtype, gpuscan::Op op) {
  return narrow_dtype(dtype) ? accumulate_dtype(dtype, op) : dtype;
}

// What gpuscan runs for a scan, reduction or compaction whose result has dtype `result`: `a` cast to
// `result` where gpuscan has that dtype; for a bool or 8- or 16-bit `result`, `a` cast to it and then
// widened to the 32-bit integer of the same signedness (bool to uint32 and its ops to the logical ones:
// add to or, mul and min to and, max to or). narrow() brings the results back exactly: integer add, mul
// and the bitwise ops keep their low bits under the cast, as numpy's wrap in the narrow dtype, and min
// and max are clamped so that their 32-bit identities (at the front of an exclusive scan or segment, or
// from an empty reduction) become the narrow dtype's.
struct Operand {
  py::array array;
  gpuscan::Op op;
  py::object narrow_to;  // None, or the narrow result dtype
  bool clamp = false;

  py::array narrow(const py::array& wide) const {
    if (narrow_to.is_none()) return wide;
    const py::module_ numpy = py::module_::import("numpy");
    py::object values = wide;
    if (clamp) {
      const py::object info = numpy.attr("iinfo")(narrow_to);
      values = numpy.attr("clip")(wide, info.attr("min"), info.attr("max"));
    }
    return values.attr("astype")(narrow_to);
  }
  py::object narrow_scalar(const py::object& wide) const {
    if (narrow_to.is_none()) return wide;
    const py::array one = py::module_::import("numpy").attr("array")(py::make_tuple(wide));
    return narrow(one).attr("__getitem__")(0);
  }
};

Operand operand(const py::array& a, const py::dtype& result, gpuscan::Op op, const char* function) {
  if (!native_dtype(result) && !narrow_dtype(result)) unsupported_dtype(result, function);
  const py::array cast = a.dtype().equal(result) ? a : py::array(a.attr("astype")(result));
  if (native_dtype(result)) return {cast, op, py::none(), false};
  using gpuscan::Op;
  const char k = result.kind();
  if (k == 'b') {
    const Op logical = op == Op::add || op == Op::max ? Op::bit_or : op == Op::mul || op == Op::min ? Op::bit_and : op;
    return {cast.attr("astype")("uint32"), logical, result, false};
  }
  return {cast.attr("astype")(k == 'u' ? "uint32" : "int32"), op, result, op == Op::min || op == Op::max};
}


py::array scan(std::shared_ptr<State> state, const py::object& a, gpuscan::ScanKind kind, const std::string& op,
               const std::string& algorithm, bool deterministic, const char* function) {
  gpuscan::ScanConfig config = make_config(op, algorithm);
  config.kind = kind;
  config.deterministic = deterministic;
  const py::array array = input_array(a, function);
  const Operand in = operand(array, result_dtype(array.dtype(), config.op), config.op, function);
  config.op = in.op;
  config.type = checked_type(in.array, config.op, function);
  return in.narrow(gpuscan::visit_type(config.type, [&](auto tag) {
    return scan_typed<decltype(tag)>(std::move(state), in.array, config);
  }));
}

// A scan with a custom operator (gpuscan::CustomOp): each element of `a` along its first axis is one T
// (a structured dtype, or the rows of an (n, k) array), so the element size is the row's byte size.
py::array custom_scan(std::shared_ptr<State> state, const py::object& a, const std::string& glsl, bool inclusive) {
  const py::array input = input_array(a, "custom_scan");
  if (input.ndim() < 1) throw py::value_error("custom_scan() needs at least one dimension: the elements");
  const py::ssize_t n = input.shape(0);
  py::ssize_t row_bytes = input.itemsize();
  for (py::ssize_t d = 1; d < input.ndim(); ++d) row_bytes *= input.shape(d);
  gpuscan::ScanConfig config;
  config.kind = inclusive ? gpuscan::ScanKind::inclusive : gpuscan::ScanKind::exclusive;
  config.custom_op = gpuscan::CustomOp{glsl, static_cast<uint32_t>(row_bytes)};
  const std::span<const std::byte> bytes(static_cast<const std::byte*>(input.data()),
                                         static_cast<size_t>(n * row_bytes));
  py::array out(input.dtype(), std::vector<py::ssize_t>(input.shape(), input.shape() + input.ndim()));
  std::vector<std::byte> result;
  {
    py::gil_scoped_release release;
    if (n == 0) gpuscan::compile_custom_op(state->ctx, *config.custom_op);  // still checks the snippet
    else result = gpuscan::scan_bytes(state->ctx, bytes, config);
    state.reset();  // as in scan_typed
  }
  if (!result.empty()) std::memcpy(out.mutable_data(), result.data(), result.size());
  return out;
}

py::object reduce(std::shared_ptr<State> state, const py::object& a, const std::string& op_name) {
  const gpuscan::Op op = parse_op(op_name);
  const py::array array = input_array(a, "reduce");
  const Operand in = operand(array, result_dtype(array.dtype(), op), op, "reduce");
  const gpuscan::DataType type = checked_type(in.array, in.op, "reduce");
  return in.narrow_scalar(
      gpuscan::visit_type(type, [&](auto tag) { return reduce_typed<decltype(tag)>(std::move(state), in.array, in.op); }));
}

// ---------------------------------------------------------------------------------------------------
// Histogram

// np.histogram(a, bins, range, density) on the GPU. numpy checks bins and range and computes the edges
// (numpy.histogram_bin_edges: numpy's errors, and its edges bit for bit in its dtype, float32 for float32
// samples with even bins); the GPU counts them with the last bin closed, numpy's convention, comparing
// samples and edges exactly as real numbers. Samples as numpy takes them: bool as uint8 (with numpy's
// RuntimeWarning), 8- and 16-bit integers and float16 widened losslessly to 32 bits, the 32- and 64-bit
// dtypes as they are, except where numpy compares in float64: int64 and uint64 samples against float
// edges (a bin count, a string, float edge arrays; also uint64 samples against int64 edges, whose common
// dtype is float64) are converted to float64 on the host, as numpy converts them (rounding past 2^53),
// and counted by the f64 histogram; against integer edges of a common integer dtype they keep their
// dtype and are compared exactly, as numpy does. weights= is a NotImplementedError: the kernel only
// counts. Returns (counts as intp, or numpy's density, edges).

// TypeError for dtypes numpy's histogram takes and gpuscan cannot; checked before numpy sees them.
void check_histogram_dtype(const py::dtype& dtype) {
  const char k = dtype.kind();
  if (native_dtype(dtype) || ((k == 'i' || k == 'u') && dtype.itemsize() < 4) || (k == 'f' && dtype.itemsize() == 2))
    return;
  throw py::type_error("histogram() counts samples of integer and float dtypes up to 64 bits (and bool), not " +
                       dtype_name(dtype));
}

// The samples (of a dtype check_histogram_dtype takes) as the GPU counts them. `edges` (numpy's), `bins` and `range` decide how numpy compares 64-bit integer samples: in float64
// where the edges are floats or their common dtype with the samples is, after numpy's even-bin path has
// dropped the samples outside `range`, compared with range's values as given (exactly for Python ints).
py::array histogram_samples(const py::array& a, const py::array& edges, const py::object& bins,
                            const py::object& range) {
  const py::module_ np = py::module_::import("numpy");
  const py::dtype dtype = a.dtype();
  const char k = dtype.kind();
  if ((k == 'i' || k == 'u') && dtype.itemsize() == 8) {
    const char common = py::dtype::from_args(np.attr("result_type")(dtype, edges.dtype())).kind();
    if (edges.dtype().kind() != 'f' && common != 'f') return a;
    py::object kept = a;
    if (np.attr("ndim")(bins).cast<int>() == 0 && !range.is_none()) {
      // numpy's even bins: keep = (a >= first) & (a <= last), range widened by 0.5 each way if equal.
      py::object first = range.attr("__getitem__")(0), last = range.attr("__getitem__")(1);
      if (first.equal(last)) {
        const py::module_ op = py::module_::import("operator");
        first = op.attr("sub")(first, 0.5);
        last = op.attr("add")(last, 0.5);
      }
      kept = a.attr("__getitem__")(
          np.attr("logical_and")(np.attr("greater_equal")(a, first), np.attr("less_equal")(a, last)));
    }
    return kept.attr("astype")("float64");
  }
  if ((k == 'i' || k == 'u') && dtype.itemsize() < 4) return a.attr("astype")(k == 'i' ? "int32" : "uint32");
  if (k == 'f' && dtype.itemsize() == 2) return a.attr("astype")("float32");
  return a;
}

// The edges as the doubles the library takes: ValueError for a NaN edge (numpy's result is meaningless
// there) and for 64-bit integer edges that float64 cannot hold exactly, unless numpy compares in float64
// (`samples` float64), where they round as numpy rounds them.
gpuscan::HistogramBins histogram_bins(const py::array& edges, const py::array& samples) {
  const py::module_ np = py::module_::import("numpy");
  const py::array_t<double> wide = np.attr("asarray")(edges, "float64");
  if (np.attr("isnan")(wide).attr("any")().cast<bool>()) throw py::value_error("histogram(): a bin edge is NaN");
  if (edges.dtype().kind() != 'f' && samples.dtype().kind() != 'f' &&
      !np.attr("array_equal")(wide.attr("astype")("object"), edges.attr("astype")("object")).cast<bool>())
    throw py::value_error("histogram(): integer bin edges beyond 2^53 that float64 cannot hold exactly are not "
                          "supported");
  return gpuscan::HistogramBins::custom({wide.data(), wide.data() + wide.size()});
}

// numpy.histogram's (counts, edges) from the counts: with density, numpy's own expression, so numpy's
// float64 values and warnings.
py::tuple histogram_result(const std::vector<uint64_t>& counts, const py::array& edges, const py::object& density) {
  const py::module_ np = py::module_::import("numpy");
  py::object result = intp_array(counts);
  const int want_density = PyObject_IsTrue(density.ptr());
  if (want_density < 0) throw py::error_already_set();
  if (want_density) {
    const py::object widths = np.attr("array")(np.attr("diff")(edges), "float64");
    result = result.attr("__truediv__")(widths).attr("__truediv__")(result.attr("sum")());
  }
  return py::make_tuple(result, edges);
}

py::object histogram(std::shared_ptr<State> state, const py::object& a, const py::object& bins,
                     const py::object& range, const py::object& density, const py::object& weights) {
  if (!weights.is_none()) {
    PyErr_SetString(PyExc_NotImplementedError, "histogram(): weights= is not supported: the GPU kernel counts "
                    "samples; use numpy.histogram(a, bins, range, weights=w) for weighted counts");
    throw py::error_already_set();
  }
  const py::module_ np = py::module_::import("numpy");
  py::array array = input_array(a, "histogram").attr("ravel")();
  if (array.dtype().kind() == 'b') {  // as numpy.histogram does
    py::module_::import("warnings").attr("warn")("Converting input from bool to <class 'numpy.uint8'> for "
                                                 "compatibility.", py::handle(PyExc_RuntimeWarning), 2);
    array = array.attr("astype")("uint8");
  }
  check_histogram_dtype(array.dtype());
  const py::array edges = np.attr("histogram_bin_edges")(array, bins, range);
  const py::array samples = histogram_samples(array, edges, bins, range);
  const gpuscan::HistogramBins b = histogram_bins(edges, samples);
  std::vector<uint64_t> counts;
  if (b.edges.size() >= 2) {  // numpy's one edge (bins=[x]) or none: no bins, an empty histogram
    const gpuscan::HistogramConfig config{
        .type = *data_type_of(samples.dtype()),
        .counts = static_cast<uint64_t>(samples.size()) > UINT32_MAX ? gpuscan::DataType::u64 : gpuscan::DataType::u32,
        .last_bin_closed = true};
    const std::span<const std::byte> bytes = bytes_of(samples);
    py::gil_scoped_release release;
    counts = gpuscan::histogram_bytes(state->ctx, bytes, b, config);
    state.reset();
  }
  return histogram_result(counts, edges, density);
}

// ---------------------------------------------------------------------------------------------------
// Sorting: np.sort(a, kind="stable"), np.argsort(a, kind="stable") and keys with values, on 1-D arrays
// of uint32, int32, float32, uint64, int64 and float64 keys, through gpuscan::sort_bytes. Floats in
// numpy's order (-0.0 == +0.0, NaNs last); descending=True: the reverse order, ties still in input order.

struct SortKeys {
  py::array array;  // C-contiguous
  gpuscan::DataType type;
};

SortKeys sort_keys_of(const py::object& obj, const char* function) {
  const py::array a = input_array(obj, function);
  if (a.ndim() != 1)
    throw py::value_error(std::string(function) + "() sorts 1-D arrays, not " + std::to_string(a.ndim()) +
                          "-D ones (sort each row, or a.ravel())");
  if (const auto type = data_type_of(a.dtype())) return {a, *type};
  throw py::type_error(std::string(function) + "() sorts keys of dtype uint32, int32, float32, uint64, int64 and " +
                       "float64, not " + dtype_name(a.dtype()) + " (convert with a.astype(...))");
}

py::array array_of(const std::vector<std::byte>& bytes, const py::dtype& dtype) {
  py::array out = py::module_::import("numpy").attr("empty")(bytes.size() / dtype.itemsize(), dtype);
  if (!bytes.empty()) std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
  return out;
}

// Keys (values: None), argsort (`indices`), or keys with values of any 4- or 8-byte dtype.
// algorithm=: "auto" (multipass), "multipass" or "onesweep", as the CLI's --algorithm.
gpuscan::SortAlgorithm sort_algorithm(const std::string& name) {
  if (name == "auto") return gpuscan::SortAlgorithm::automatic;
  if (name == "multipass") return gpuscan::SortAlgorithm::multipass;
  if (name == "onesweep") return gpuscan::SortAlgorithm::onesweep;
  throw py::value_error("sort algorithm is 'auto', 'multipass' or 'onesweep', not '" + name + "'");
}

gpuscan::SortedBytes run_sort(std::shared_ptr<State> state, const SortKeys& keys, const py::array* values,
                              bool descending, const std::string& algorithm, bool indices) {
  gpuscan::SortConfig config{.key_type = keys.type, .descending = descending, .algorithm = sort_algorithm(algorithm)};
  if (values) config.value_bytes = static_cast<uint32_t>(values->itemsize());
  if (indices) config.value_bytes = 4;
  if (keys.array.size() > UINT32_MAX)
    throw py::value_error("sort takes at most 2**32 - 1 keys, not " + std::to_string(keys.array.size()));
  gpuscan::SortedBytes out;
  const std::span<const std::byte> value_bytes = values ? bytes_of(*values) : std::span<const std::byte>();
  {
    py::gil_scoped_release release;
    out = gpuscan::sort_bytes(state->ctx, bytes_of(keys.array), value_bytes, config, indices);
    state.reset();
  }
  return out;
}

const char* const sort_doc =
    "numpy.sort(a, kind='stable') of a 1-D array of uint32, int32, float32, uint64, int64 or float64 keys\n"
    "(LSD radix sort on the GPU). Floats in numpy's order: -0.0 and +0.0 equal (input order kept), NaNs last.\n"
    "descending=True: largest first, ties in input order (NaNs first); not the reverse of the ascending result.\n"
    "algorithm: 'auto' (multipass), 'multipass' or 'onesweep' (needs 64-bit buffer atomics).";
const char* const argsort_doc =
    "numpy.argsort(a, kind='stable') (intp positions, as numpy's), with sort()'s dtypes, order and descending=.";
const char* const sort_pairs_doc =
    "(keys sorted as by sort(), values moved with their keys): values is 1-D, as long as keys, of any dtype\n"
    "of 4 or 8 bytes; equal keys keep their values in input order. As (keys[o], values[o]) with\n"
    "o = numpy.argsort(keys, kind='stable').";

py::array sort_array(std::shared_ptr<State> state, const py::object& a, bool descending, const std::string& algorithm) {
  const SortKeys keys = sort_keys_of(a, "sort");
  return array_of(run_sort(std::move(state), keys, nullptr, descending, algorithm, false).keys, keys.array.dtype());
}

py::array argsort_array(std::shared_ptr<State> state, const py::object& a, bool descending,
                        const std::string& algorithm) {
  const SortKeys keys = sort_keys_of(a, "argsort");
  const std::vector<std::byte> positions =
      run_sort(std::move(state), keys, nullptr, descending, algorithm, true).values;
  std::vector<uint32_t> out(positions.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), positions.data(), positions.size());
  return intp_array(out);  // as numpy.argsort
}

py::tuple sort_pairs_arrays(std::shared_ptr<State> state, const py::object& k, const py::object& v, bool descending,
                            const std::string& algorithm) {
  const SortKeys keys = sort_keys_of(k, "sort_pairs");
  const py::array values = input_array(v, "sort_pairs");
  if (values.ndim() != 1 || values.size() != keys.array.size())
    throw py::value_error("sort_pairs() needs a 1-D values array as long as the keys (" +
                          std::to_string(keys.array.size()) + " values)");
  if (values.itemsize() != 4 && values.itemsize() != 8)
    throw py::type_error("sort_pairs() moves values of 4 or 8 bytes, not of dtype " + dtype_name(values.dtype()));
  const gpuscan::SortedBytes out = run_sort(std::move(state), keys, &values, descending, algorithm, false);
  return py::make_tuple(array_of(out.keys, keys.array.dtype()), array_of(out.values, values.dtype()));
}

// ---------------------------------------------------------------------------------------------------
// Compaction

// `path=` and `algorithm=` of compact() / partition(), as the CLI's --path and --algorithm; underscores
// are accepted for hyphens.
gpuscan::CompactConfig make_compact_config(std::string path, std::string algorithm) {
  for (std::string* name : {&path, &algorithm})
    for (char& c : *name)
      if (c == '_') c = '-';
  gpuscan::CompactConfig config;
  if (path == "ballot") config.path = gpuscan::CompactPath::ballot;
  else if (path == "shared-memory") config.path = gpuscan::CompactPath::shared_memory;
  else if (path != "auto")
    throw py::value_error("unknown path " + std::string(py::repr(py::str(path))) +
                          ": expected 'auto', 'ballot' or 'shared-memory'");
  const auto a = gpuscan::parse_compact_algorithm(algorithm);
  if (!a)
    throw py::value_error("unknown compaction algorithm " + std::string(py::repr(py::str(algorithm))) +
                          ": expected 'auto', 'three-pass' or 'single-pass'");
  config.algorithm = *a;
  return config;
}

// numpy reads an empty sequence ([], ()) as float64, yet indexes with it as with an empty index (a[[]] is
// empty): as a mask, keys or offsets it stands for an empty array of `dtype` here. Arrays keep their dtype.
py::array empty_sequence_as(const py::object& given, const py::array& array, const char* dtype) {
  if (py::isinstance<py::array>(given) || array.size() != 0 || array.dtype().kind() != 'f') return array;
  return array.attr("astype")(dtype);
}

// The flags of a boolean or integer mask of `n` elements: 1 where it is non-zero. `arg` names the
// argument in errors: "pred" (compaction: a mask or a predicate string) or "flags" (segment heads).
py::array_t<uint32_t> flags_from_mask(const py::object& mask_like, py::ssize_t n, const char* function,
                                      const std::string& arg) {
  const py::array mask = empty_sequence_as(mask_like, input_array(mask_like, function), "bool");
  const char k = mask.dtype().kind();
  if (k != 'b' && k != 'i' && k != 'u') {
    const std::string got = " (got " + dtype_name(mask.dtype()) + ")";
    if (arg == "pred")
      throw py::type_error(std::string(function) + "() takes `pred` as a predicate string such as 'gt:100' or a "
                           "boolean (or integer) mask array" + got);
    throw py::type_error(std::string(function) + "() takes `" + arg + "` as a boolean (or integer) array, "
                         "non-zero where a segment begins" + got);
  }
  if (mask.ndim() != 1 || mask.shape(0) != n)
    throw py::value_error(std::string(function) + "(): `" + arg + "` has shape " +
                          std::string(py::str(py::tuple(mask.attr("shape")))) +
                          "; it must be 1-D with one entry per element (" + std::to_string(n) + ")");
  py::object nonzero = py::module_::import("numpy").attr("not_equal")(mask, 0);
  return contiguous<uint32_t>(py::array(nonzero.attr("astype")("uint32")));
}

template <class T>
std::span<const T> span_of(const py::array_t<T>& a) {
  return {a.data(), static_cast<size_t>(a.size())};
}

// select_if / select_flagged (partition = false: the kept elements) or partition / partition_flagged
// (the tuple (all elements, kept first, number kept)) of `a` on `state`'s device.
template <class T>
py::object compact_typed(std::shared_ptr<State> state, const py::array& a, const py::object& pred,
                         gpuscan::CompactConfig config, bool partition, const char* function) {
  const auto input = contiguous<T>(a);
  std::optional<py::array_t<uint32_t>> flags;
  gpuscan::Predicate predicate;
  if (py::isinstance<py::str>(pred)) {
    try {
      predicate = gpuscan::parse_predicate(pred.cast<std::string>(), config.type);
    } catch (const gpuscan::Error& e) {
      throw py::value_error(e.what());
    }
  } else {
    flags = flags_from_mask(pred, input.size(), function, "pred");
  }
  gpuscan::PartitionResult<T> r;
  {
    py::gil_scoped_release release;
    const std::span<const T> values = span_of(input);
    if (flags && partition) r = gpuscan::partition_flagged<T>(state->ctx, values, span_of(*flags), config);
    else if (partition) r = gpuscan::partition<T>(state->ctx, values, predicate, config);
    else if (flags) r.values = gpuscan::select_flagged<T>(state->ctx, values, span_of(*flags), config);
    else r.values = gpuscan::select_if<T>(state->ctx, values, predicate, config);
    state.reset();  // as in scan_typed
  }
  if (!partition) return to_numpy(std::move(r.values));
  const uint64_t kept = r.kept;
  return py::make_tuple(to_numpy(std::move(r.values)), kept);
}

// Dtypes compaction has no type for (float16, longdouble, complex, ...).
[[noreturn]] void uncompactable_dtype(const py::dtype& dtype, const char* function) {
  const std::string hint = dtype.kind() == 'f' ? ": pass np.asarray(a, np.float32) or np.float64" : "";
  throw py::type_error(std::string(function) + "() supports arrays of dtype uint32, int32, float32, uint64, int64 "
                       "and float64 (and bool and 8- and 16-bit integers), not " + dtype_name(dtype) + hint);
}

py::object compact(std::shared_ptr<State> state, const py::object& a, const py::object& pred, const std::string& path,
                   const std::string& algorithm, bool partition) {
  const char* function = partition ? "partition" : "compact";
  gpuscan::CompactConfig config = make_compact_config(path, algorithm);
  const py::array array = input_array(a, function);
  const py::dtype dtype = array.dtype();
  if (!narrow_dtype(dtype) && !native_dtype(dtype)) uncompactable_dtype(dtype, function);
  // Narrow elements are compacted as their 32-bit widening, which compares as they do, and cast back.
  const Operand in = operand(array, dtype, gpuscan::Op::add, function);
  config.type = checked_type(in.array, gpuscan::Op::add, function);
  const auto run = [&](auto tag) {
    return compact_typed<decltype(tag)>(std::move(state), in.array, pred, config, partition, function);
  };
  py::object result;
  switch (config.type) {
    case gpuscan::DataType::u32: result = run(uint32_t{}); break;
    case gpuscan::DataType::i32: result = run(int32_t{}); break;
    case gpuscan::DataType::f32: result = run(float{}); break;
    case gpuscan::DataType::u64: result = run(uint64_t{}); break;
    case gpuscan::DataType::i64: result = run(int64_t{}); break;
    case gpuscan::DataType::f64: result = run(double{}); break;
  }
  if (!partition) return in.narrow(result);
  const py::tuple values_kept = result;
  return py::make_tuple(in.narrow(values_kept[0].cast<py::array>()), values_kept[1]);
}

// unique_by_key(keys, values): the first of every run of equal consecutive keys and the value beside it.
// Keys are integers or bool, compared as they are (widened to u32, or as u64 bits); values any dtype
// compact() takes.
py::tuple unique_by_key(std::shared_ptr<State> state, const py::object& keys_obj, const py::object& values_obj,
                        const std::string& algorithm) {
  const char* function = "unique_by_key";
  gpuscan::CompactConfig config = make_compact_config("auto", algorithm);
  const py::array keys = empty_sequence_as(keys_obj, input_array(keys_obj, function), "int64");
  const py::dtype key_dtype = keys.dtype();
  const char kk = key_dtype.kind();
  if (!(kk == 'u' || kk == 'i' || kk == 'b') || key_dtype.itemsize() > 8)
    throw py::type_error(std::string(function) + "() takes integer or bool keys (compared exactly), not " +
                         dtype_name(key_dtype));
  const bool wide_keys = key_dtype.itemsize() == 8;
  const py::array key_words = keys.attr("astype")(wide_keys ? "uint64" : "uint32");
  const py::array values = input_array(values_obj, function);
  if (values.ndim() != 1 || key_words.ndim() != 1 || values.size() != keys.size())
    throw py::value_error(std::string(function) + "() takes 1-D keys and values of the same length, not " +
                          std::to_string(keys.size()) + " keys and " + std::to_string(values.size()) + " values");
  const py::dtype dtype = values.dtype();
  if (!narrow_dtype(dtype) && !native_dtype(dtype)) uncompactable_dtype(dtype, function);
  const Operand in = operand(values, dtype, gpuscan::Op::add, function);
  config.type = checked_type(in.array, gpuscan::Op::add, function);
  py::object unique_keys, firsts;
  const auto run = [&](auto key_tag, auto value_tag) {
    using Key = decltype(key_tag);
    using T = decltype(value_tag);
    const auto k = contiguous<Key>(key_words);
    const auto v = contiguous<T>(in.array);
    std::pair<std::vector<Key>, std::vector<T>> r;
    {
      py::gil_scoped_release release;
      r = gpuscan::unique_by_key<Key, T>(state->ctx, span_of(k), span_of(v), config);
      state.reset();
    }
    unique_keys = to_numpy(std::move(r.first));
    firsts = to_numpy(std::move(r.second));
  };
  const auto with_key = [&](auto value_tag) {
    if (wide_keys) run(uint64_t{}, value_tag);
    else run(uint32_t{}, value_tag);
  };
  switch (config.type) {
    case gpuscan::DataType::u32: with_key(uint32_t{}); break;
    case gpuscan::DataType::i32: with_key(int32_t{}); break;
    case gpuscan::DataType::f32: with_key(float{}); break;
    case gpuscan::DataType::u64: with_key(uint64_t{}); break;
    case gpuscan::DataType::i64: with_key(int64_t{}); break;
    case gpuscan::DataType::f64: with_key(double{}); break;
  }
  return py::make_tuple(unique_keys.attr("astype")(key_dtype), in.narrow(firsts.cast<py::array>()));
}

// ---------------------------------------------------------------------------------------------------
// Primitives registered from their signature (gpuscan/signature.hpp): def_primitive<P>(...) below makes
// a Context method and a module function of one, which is all it takes to offer a primitive here.
//
// The function takes the inputs positionally or by name (the first is `a`, as in numpy's functions; the
// others keep the signature's names) and the settings as keywords (`non_trivial=True`, `algorithm=
// 'three-pass'`; '_' for the signature's '-'). The element type is the first input's dtype, bool and
// 8- and 16-bit integers widened to 32 bits and the element outputs narrowed back (Operand); another
// element input is cast to it (numpy's same_kind casting), a positions input is an integer array of
// values in [0, 2^32). Outputs: elements in the input's dtype, positions as intp; one array, or a
// tuple of them in the signature's order.

std::string python_name(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

// A positions input as u32: integers (or bool) in [0, 2^32), 1-D.
py::array positions_u32(const py::object& given, const char* function, const std::string& name) {
  const py::array a = empty_sequence_as(given, input_array(given, function), "uint32");
  const char k = a.dtype().kind();
  if (k != 'i' && k != 'u' && k != 'b')
    throw py::type_error(std::string(function) + "(): " + name + " must be integers, not dtype " + dtype_name(a.dtype()));
  if (a.ndim() != 1) throw py::value_error(std::string(function) + "(): " + name + " must be 1-D");
  const py::module_ np = py::module_::import("numpy");
  if (a.size() > 0 && (np.attr("min")(a).cast<py::int_>() < py::int_(0) ||
                       np.attr("max")(a).cast<py::int_>() > py::int_(UINT32_MAX)))
    throw py::value_error(std::string(function) + "(): " + name + " must lie in [0, 2**32)");
  return a.attr("astype")("uint32");
}

// Runs `d` (every setting but the element type already set) on `inputs`, one per Signature<P>::inputs();
// returns the outputs as numpy arrays.
template <class P>
std::vector<py::object> run_primitive(std::shared_ptr<State> state, const char* function, P d,
                                      const std::vector<py::object>& inputs) {
  using S = gpuscan::Signature<P>;
  const py::array first = input_array(inputs.at(0), function);
  const py::dtype dtype = first.dtype();
  if (!narrow_dtype(dtype) && !native_dtype(dtype)) uncompactable_dtype(dtype, function);
  const Operand in = operand(first, dtype, gpuscan::Op::add, function);
  const gpuscan::DataType type = checked_type(in.array, gpuscan::Op::add, function);
  for (const gpuscan::Setting& s : S::settings(d))
    if (s.element_type) s.choose(gpuscan::to_string(type));
  const std::vector<gpuscan::ArraySpec> specs = S::inputs(d);
  std::vector<py::array> arrays;  // each contiguous and aligned, alive while the GPU reads it
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string name = i == 0 ? "a" : std::string(specs[i].name);
    py::array array;
    if (i == 0) array = in.array;
    else if (specs[i].role == gpuscan::ArrayRole::positions) array = positions_u32(inputs.at(i), function, name);
    else
      array = input_array(inputs.at(i), function).attr("astype")(in.array.dtype(), py::arg("casting") = "same_kind");
    arrays.push_back(py::module_::import("numpy").attr("require")(array, py::none(), py::make_tuple("C", "A")));
  }
  std::vector<std::span<const std::byte>> spans;
  for (const py::array& a : arrays) spans.push_back(bytes_of(a));
  const uint64_t count = static_cast<uint64_t>(arrays.at(0).size());
  std::vector<std::vector<std::byte>> outputs;
  {
    py::gil_scoped_release release;
    typename P::Output out = gpuscan::Plan<P>(state->ctx, d, {.max_count = count, .prepare = false})
                                 .run(S::input(d, spans));
    outputs = S::output(d, std::move(out));
    state.reset();
  }
  std::vector<py::object> result;
  const std::vector<gpuscan::ArraySpec> out_specs = S::outputs(d);
  for (size_t i = 0; i < out_specs.size(); ++i) {
    if (out_specs[i].role == gpuscan::ArrayRole::elements) {
      result.push_back(in.narrow(array_of(outputs[i], in.array.dtype())));
      continue;
    }
    std::vector<uint32_t> positions(outputs[i].size() / sizeof(uint32_t));
    if (!positions.empty()) std::memcpy(positions.data(), outputs[i].data(), outputs[i].size());
    result.push_back(intp_array(positions));
  }
  return result;
}

// A registered primitive on device arrays (`inputs` holding one): the primitives the device-array section
// below implements overload this; the others raise.
template <class P>
std::vector<py::object> device_primitive(const std::shared_ptr<State>&, const char* function, const P&,
                                         const std::vector<py::object>&) {
  not_on_device(std::string(function) + "() does not take device arrays; pass a.get()");
}
std::vector<py::object> device_primitive(const std::shared_ptr<State>& state, const char* function,
                                         const gpuscan::primitive::RunLength& d, const std::vector<py::object>& inputs);

// The call of a registered primitive's function: arguments as the section's comment says. `fixed`:
// flags the registration sets, which are no keywords then.
template <class P>
py::object call_primitive(std::shared_ptr<State> state, const std::string& function,
                          const std::vector<std::string_view>& fixed, const py::args& args, const py::kwargs& kwargs) {
  using S = gpuscan::Signature<P>;
  P d;
  std::vector<gpuscan::Setting> settings = S::settings(d);
  for (const gpuscan::Setting& s : settings)
    for (std::string_view f : fixed)
      if (s.flag && s.name == f) *s.flag = true;
  const std::vector<gpuscan::ArraySpec> specs = S::inputs(d);
  std::vector<py::object> inputs(specs.size());
  if (args.size() > specs.size())
    throw py::type_error(function + "() takes " + std::to_string(specs.size()) + " positional argument" +
                         (specs.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) + " were given");
  for (size_t i = 0; i < args.size(); ++i) inputs[i] = args[i];
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::cast<std::string>(key);
    bool used = false;
    for (size_t i = 0; i < specs.size() && !used; ++i)
      if (name == (i == 0 ? std::string("a") : python_name(specs[i].name))) {
        if (inputs[i]) throw py::type_error(function + "() got multiple values for argument '" + name + "'");
        inputs[i] = py::reinterpret_borrow<py::object>(value);
        used = true;
      }
    for (const gpuscan::Setting& s : settings) {
      if (used || s.element_type || python_name(s.name) != name) continue;
      if (std::ranges::find(fixed, s.name) != fixed.end()) break;  // fixed by the registration
      used = true;
      if (s.flag) {
        if (!py::isinstance<py::bool_>(value)) throw py::type_error(function + "(): " + name + " must be True or False");
        *s.flag = py::cast<bool>(value);
        continue;
      }
      if (!py::isinstance<py::str>(value)) throw py::type_error(function + "(): " + name + " must be a str");
      std::string choice = py::cast<std::string>(value);
      for (char& c : choice)
        if (c == '_') c = '-';
      std::string expected;
      bool known = false;
      for (size_t i = 0; i < s.choices.size(); ++i) {
        known = known || s.choices[i] == choice;
        expected += (i == 0 ? "'" : i + 1 == s.choices.size() ? " or '" : ", '") + std::string(s.choices[i]) + "'";
      }
      if (!known)
        throw py::value_error("unknown " + std::string(s.name) + " " + std::string(py::repr(value)) + ": expected " +
                              expected);
      s.choose(choice);
    }
    if (!used) throw py::type_error(function + "() got an unexpected keyword argument '" + name + "'");
  }
  for (size_t i = 0; i < specs.size(); ++i)
    if (!inputs[i])
      throw py::type_error(function + "() missing required argument '" +
                           (i == 0 ? std::string("a") : python_name(specs[i].name)) + "'");
  const bool on_gpu = std::ranges::any_of(inputs, [](const py::object& o) { return as_device(o) != nullptr; });
  const std::vector<py::object> out = on_gpu ? device_primitive(state, function.c_str(), d, inputs)
                                             : run_primitive<P>(std::move(state), function.c_str(), d, inputs);
  if (out.size() == 1) return out[0];
  py::tuple t(out.size());
  for (size_t i = 0; i < out.size(); ++i) t[i] = out[i];
  return t;
}

// unique(equal_nan=True): a NaN run start that follows a NaN run start stood right after it in the
// input (anything between would have started a run of its own), so it is dropped and its count (where
// `counts` is not None) added to the first's. Each run of consecutive NaNs becomes one, and sorted input,
// which holds its NaNs at the end, keeps one NaN, as numpy.unique(equal_nan=True) does.
std::pair<py::object, py::object> merge_nan_runs(const py::array& values, const py::object& counts) {
  if (values.dtype().kind() != 'f' || values.size() < 2) return {values, counts};
  const py::module_ np = py::module_::import("numpy");
  const py::object nan = np.attr("isnan")(values);
  const py::object follows_nan = np.attr("logical_and")(nan[py::slice(1, values.size(), 1)],
                                                        nan[py::slice(0, values.size() - 1, 1)]);
  const py::object keep =
      np.attr("concatenate")(py::make_tuple(np.attr("ones")(1, "bool"), np.attr("logical_not")(follows_nan)));
  const py::object kept = values.attr("__getitem__")(keep);
  if (counts.is_none()) return {kept, counts};
  return {kept, np.attr("add").attr("reduceat")(counts, np.attr("flatnonzero")(keep))};
}

// ---------------------------------------------------------------------------------------------------
// Segmented scans

// The segmented scan of `a` (include/gpuscan/segmented.hpp): heads from `flags` (a bool or integer mask
// of len(a), a segment starting where it is non-zero) or from `keys` (an integer array of len(a), 4 or
// 8 bytes per key, a segment starting where the key changes); exactly one of the two.
template <class T>
py::array segmented_typed(std::shared_ptr<State> state, const py::array& a, const py::object& flags,
                          const py::object& keys, const gpuscan::ScanConfig& config) {
  const auto input = contiguous<T>(a);
  const py::ssize_t n = input.size();
  py::array heads;
  gpuscan::SegmentHeads kind = gpuscan::SegmentHeads::flags;
  if (!flags.is_none()) {
    heads = flags_from_mask(flags, n, "segmented_scan", "flags");
  } else {
    const py::array k = empty_sequence_as(keys, input_array(keys, "segmented_scan"), "int64");
    const char dk = k.dtype().kind();
    if ((dk != 'i' && dk != 'u') || (k.dtype().itemsize() != 4 && k.dtype().itemsize() != 8))
      throw py::type_error("segmented_scan() takes keys as an array of 32- or 64-bit integers");
    if (k.ndim() != 1 || k.shape(0) != n)
      throw py::value_error("segmented_scan(): the keys have shape " + std::string(py::str(py::tuple(k.attr("shape")))) +
                            "; they must be 1-D with one key per element (" + std::to_string(n) + ")");
    if (k.dtype().itemsize() == 8) {
      kind = gpuscan::SegmentHeads::keys_u64;
      heads = contiguous<uint64_t>(k.attr("view")("uint64"));
    } else {
      kind = gpuscan::SegmentHeads::keys_u32;
      heads = contiguous<uint32_t>(k.attr("view")("uint32"));
    }
  }
  std::vector<T> out(static_cast<size_t>(n));
  {
    py::gil_scoped_release release;
    const auto bytes = gpuscan::segmented_scan_bytes(
        state->ctx, std::as_bytes(std::span<const T>(input.data(), static_cast<size_t>(n))),
        std::span<const std::byte>(static_cast<const std::byte*>(heads.data()), static_cast<size_t>(heads.nbytes())),
        kind, config);
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    state.reset();  // as in scan_typed
  }
  return to_numpy(std::move(out));
}

py::array segmented(std::shared_ptr<State> state, const py::object& a, const py::object& flags, const py::object& keys,
                    const std::string& op, bool inclusive) {
  if (flags.is_none() == keys.is_none())
    throw py::value_error("segmented_scan() takes exactly one of flags= or keys=");
  gpuscan::ScanConfig config = make_config(op, "auto");
  config.kind = inclusive ? gpuscan::ScanKind::inclusive : gpuscan::ScanKind::exclusive;
  const py::array array = input_array(a, "segmented_scan");
  const Operand in = operand(array, result_dtype(array.dtype(), config.op), config.op, "segmented_scan");
  config.op = in.op;
  config.type = checked_type(in.array, config.op, "segmented_scan");
  return in.narrow(gpuscan::visit_type(config.type, [&](auto tag) {
    return segmented_typed<decltype(tag)>(std::move(state), in.array, flags, keys, config);
  }));
}

// ---------------------------------------------------------------------------------------------------
// Segmented reductions by offsets

// `offsets` as u32: a 1-D integer array of S + 1 >= 1 non-decreasing entries from 0 to `n` (len(a)); a
// ValueError otherwise, as numpy's for bad indices (the library would report gpuscan.Error).
py::array offsets_u32(const py::object& offsets, py::ssize_t n) {
  const py::module_ numpy = py::module_::import("numpy");
  py::array o = input_array(offsets, "segmented_reduce");
  const char k = o.dtype().kind();
  if (o.size() == 0 && k == 'f') o = o.attr("astype")("uint32");  // [] reads as float64
  else if (k != 'i' && k != 'u')
    throw py::type_error("segmented_reduce() takes offsets as an array of integers, not " + dtype_name(o.dtype()));
  if (o.ndim() != 1 || o.size() == 0)
    throw py::value_error("segmented_reduce(): offsets must be 1-D with S + 1 entries for S segments ([0] for "
                          "none), not of shape " + std::string(py::str(py::tuple(o.attr("shape")))));
  const py::ssize_t most = std::min<py::ssize_t>(n, UINT32_MAX);  // u32 offsets
  if (numpy.attr("min")(o).cast<py::object>() < py::int_(0) || numpy.attr("max")(o).cast<py::object>() > py::int_(most))
    throw py::value_error("segmented_reduce(): offsets must lie in [0, " + std::to_string(most) + "] (len(a) is " +
                          std::to_string(n) + ", and offsets are 32-bit)");
  // o[1:] < o[:-1], not diff(o) < 0: unsigned offsets' differences wrap and are never negative.
  const py::ssize_t m = o.size();
  const py::array decreasing = numpy.attr("flatnonzero")(
      o[py::slice(1, m, 1)].attr("__lt__")(o[py::slice(0, m - 1, 1)]));
  if (decreasing.size() > 0)
    throw py::value_error("segmented_reduce(): offsets decrease at index " +
                          std::string(py::str(decreasing.attr("__getitem__")(0).attr("__add__")(1))));
  return contiguous<uint32_t>(o.attr("astype")("uint32"));
}

template <class T>
py::array segmented_reduce_typed(std::shared_ptr<State> state, const py::array& a, const py::array& offsets,
                                 gpuscan::Op op) {
  const auto input = contiguous<T>(a);
  const std::span<const uint32_t> offs(static_cast<const uint32_t*>(offsets.data()), static_cast<size_t>(offsets.size()));
  std::vector<T> out;
  {
    py::gil_scoped_release release;
    out = gpuscan::segmented_reduce<T>(state->ctx, std::span<const T>(input.data(), static_cast<size_t>(input.size())),
                                       offs, op);
    state.reset();  // as in scan_typed
  }
  return to_numpy(std::move(out));
}

py::array segmented_reduce(std::shared_ptr<State> state, const py::object& a, const py::object& offsets,
                           const std::string& op_name) {
  const gpuscan::Op op = parse_op(op_name);
  const py::array array = input_array(a, "segmented_reduce");
  const Operand in = operand(array, result_dtype(array.dtype(), op), op, "segmented_reduce");
  const gpuscan::DataType type = checked_type(in.array, in.op, "segmented_reduce");
  const py::array offs = offsets_u32(offsets, in.array.size());
  return in.narrow(gpuscan::visit_type(type, [&](auto tag) {
    return segmented_reduce_typed<decltype(tag)>(std::move(state), in.array, offs, in.op);
  }));
}

// ---------------------------------------------------------------------------------------------------
// numpy's spellings: cumsum and cumprod

// `axis` as an index into `ndim` dimensions, as numpy reads it: operator.index (TypeError for a float or
// a tuple), negative from the end, numpy's AxisError (a ValueError and IndexError) out of bounds.
py::ssize_t normalize_axis(const py::object& axis, py::ssize_t ndim) {
  const auto index = py::module_::import("operator").attr("index")(axis).cast<py::ssize_t>();
  if (index < -ndim || index >= ndim) {
    const py::module_ numpy = py::module_::import("numpy");
    const py::object where = py::hasattr(numpy, "exceptions") ? numpy.attr("exceptions") : py::object(numpy);
    const py::object error = where.attr("AxisError")(index, ndim);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    throw py::error_already_set();
  }
  return index < 0 ? index + ndim : index;
}

// numpy.cumsum / numpy.cumprod (`op` add or mul) of `a_like`. axis=None scans a.ravel(); an axis of a 1-D
// array is the same. Along an axis of an N-D array the rows along it (that axis moved last, made
// contiguous) are the segments of one segmented scan. The accumulation runs in numpy's loop dtype:
// dtype= where given; else with out= the promotion of out's dtype and a's (numpy's ufunc resolution with
// out: uint8 products into a float64 out multiply in float64, float32 sums into an int64 out add in
// float64); else numpy's accumulate dtype (int32 sums in int64 on Linux). out= receives the result cast
// to its dtype as numpy casts there (unsafe: numpy's cumsum takes any out dtype), and is returned.
py::object cumulative(std::shared_ptr<State> state, const py::object& a_like, const py::object& axis,
                      const py::object& dtype, const py::object& out, gpuscan::Op op, const char* function) {
  const py::module_ numpy = py::module_::import("numpy");
  py::array a = input_array(a_like, function);
  if (a.ndim() == 0) a = a.attr("reshape")(1);  // as numpy: a scalar scans as one element
  if (!out.is_none() && !py::isinstance<py::array>(out))
    throw py::type_error(std::string(function) + "(): out must be a numpy array, not " +
                         std::string(py::str(py::type::handle_of(out).attr("__name__"))));
  const char k = a.dtype().kind();
  const py::dtype result = !dtype.is_none()                  ? py::dtype::from_args(dtype)
                           : !out.is_none()                   ? py::dtype::from_args(numpy.attr("result_type")(
                                                                    out.attr("dtype"), a.dtype()))
                           : k == 'b' || k == 'i' || k == 'u' ? accumulate_dtype(a.dtype(), op)
                                                              : a.dtype();
  if (!out.is_none() && dtype.is_none() && !native_dtype(result) && !narrow_dtype(result))
    throw py::type_error(std::string(function) + "(): with out= of dtype " + dtype_name(out.attr("dtype")) +
                         " numpy accumulates " + dtype_name(a.dtype()) + " in " + dtype_name(result) +
                         ", which gpuscan does not compute; pass dtype= (a dtype gpuscan takes) or another out=");
  gpuscan::ScanConfig config;
  config.kind = gpuscan::ScanKind::inclusive;
  py::array scanned;
  if (axis.is_none() || a.ndim() == 1) {
    if (!axis.is_none()) normalize_axis(axis, 1);
    const Operand in = operand(a.attr("ravel")(), result, op, function);
    config.op = in.op;
    config.type = checked_type(in.array, config.op, function);
    scanned = in.narrow(gpuscan::visit_type(config.type, [&](auto tag) {
      return scan_typed<decltype(tag)>(std::move(state), in.array, config);
    }));
  } else {
    const py::ssize_t ax = normalize_axis(axis, a.ndim());
    const py::ssize_t row = a.shape(ax);
    const py::object moved = numpy.attr("moveaxis")(a, ax, -1);
    const Operand in = operand(numpy.attr("ascontiguousarray")(moved).attr("ravel")(), result, op, function);
    config.op = in.op;
    config.type = checked_type(in.array, config.op, function);
    py::array flat = in.array;
    if (in.array.size() > 0) {
      py::array flags = numpy.attr("zeros")(in.array.size(), "bool");
      flags[py::slice(0, in.array.size(), row)] = true;  // a segment per row; row > 0 here
      flat = gpuscan::visit_type(config.type, [&](auto tag) {
        return segmented_typed<decltype(tag)>(std::move(state), in.array, flags, py::none(), config);
      });
    }
    const py::object rows = in.narrow(flat).attr("reshape")(moved.attr("shape"));
    scanned = numpy.attr("ascontiguousarray")(numpy.attr("moveaxis")(rows, -1, ax));
  }
  if (out.is_none()) return scanned;
  const py::tuple want = scanned.attr("shape"), got = out.attr("shape");
  if (!want.equal(got))
    throw py::value_error(std::string(function) + "(): out has shape " + std::string(py::repr(got)) +
                          "; the result has shape " + std::string(py::repr(want)));
  numpy.attr("copyto")(out, scanned, py::arg("casting") = "unsafe");
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Device arrays: gpuscan.DeviceArray, a 1-D array in a buffer of the device's memory, so that chained
// calls (sort, then unique, then cumsum) keep their data on the GPU. Each call records its plans
// (gpuscan::Plan) on the arrays' buffers into one command buffer and waits for it; only the results
// that size an output (a compaction's count) or that are scalars (reduce) come back to the host. Buffers
// and commands go through gpuscan::testkit, so the module itself calls no Vulkan function.

namespace tk = gpuscan::testkit;

constexpr VkBufferUsageFlags array_usage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// One buffer and the Context it lives on; shared by an array and the views sliced from it. The buffer
// is declared after the State, so it is destroyed first, while the Context still exists.
struct DeviceStorage {
  std::shared_ptr<State> state;
  tk::Buffer buffer;

  DeviceStorage(std::shared_ptr<State> s, tk::Buffer b) : state(std::move(s)), buffer(std::move(b)) {}
  ~DeviceStorage() {
    buffer = tk::Buffer();
    // The last owner of a closed Context destroys it: without the GIL, as Context.close() does.
    if (state.use_count() == 1 && Py_IsInitialized() && PyGILState_Check()) {
      py::gil_scoped_release release;
      state.reset();
    }
  }
};

tk::Buffer device_buffer(const State& state, uint64_t bytes, tk::Memory memory = tk::Memory::device_local,
                         VkBufferUsageFlags usage = array_usage) {
  return tk::Buffer(state.ctx, std::max<uint64_t>(bytes, 4), usage, memory);
}

tk::Buffer temp_buffer(const State& state, const gpuscan::TempRequirements& req) {
  return device_buffer(state, req.size, tk::Memory::device_local, req.usage | array_usage);
}

class DeviceArray {
 public:
  DeviceArray(std::shared_ptr<DeviceStorage> storage, py::dtype dtype, uint64_t offset, uint64_t length)
      : storage_(std::move(storage)), dtype_(std::move(dtype)), type_(*data_type_of(dtype_)), offset_(offset),
        length_(length) {}

  // The array's State; ValueError once its Context is closed.
  const std::shared_ptr<State>& state(const char* function) const {
    if (storage_->state->closed)
      throw py::value_error(std::string(function) + "(): the gpuscan.Context this device array was made on is closed");
    return storage_->state;
  }
  const std::shared_ptr<DeviceStorage>& storage() const { return storage_; }
  const py::dtype& dtype() const { return dtype_; }
  gpuscan::DataType type() const { return type_; }
  uint64_t itemsize() const { return static_cast<uint64_t>(dtype_.itemsize()); }
  uint64_t size() const { return length_; }
  uint64_t offset() const { return offset_; }
  uint64_t nbytes() const { return length_ * itemsize(); }
  uint64_t offset_bytes() const { return offset_ * itemsize(); }
  gpuscan::BufferView view() const { return storage_->buffer.view(offset_bytes()); }
  // The plans' vector loads need ranges at multiples of 4 elements.
  bool vector_aligned() const { return offset_ % 4 == 0; }
  DeviceArray slice(uint64_t start, uint64_t length) const { return {storage_, dtype_, offset_ + start, length}; }

 private:
  std::shared_ptr<DeviceStorage> storage_;
  py::dtype dtype_;
  gpuscan::DataType type_;
  uint64_t offset_;
  uint64_t length_;
};

const DeviceArray* as_device(const py::handle& h) {
  return h && py::isinstance<DeviceArray>(h) ? &h.cast<const DeviceArray&>() : nullptr;
}

bool any_device(std::initializer_list<py::handle> objects) {
  return std::ranges::any_of(objects, [](const py::handle& h) { return as_device(h) != nullptr; });
}

// Records `record` between barriers that order it after every earlier submission's work and make its
// writes visible to the host, submits it and waits, without the GIL.
void run_on_device(const State& state, const std::function<void(VkCommandBuffer)>& record) {
  py::gil_scoped_release release;
  tk::submit_and_wait(state.ctx, [&](VkCommandBuffer cmd) {
    tk::memory_barrier(state.ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    record(cmd);
    tk::memory_barrier(state.ctx, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
}

// A new array of `n` elements of `dtype`, its contents undefined.
DeviceArray new_device_array(const std::shared_ptr<State>& state, const py::dtype& dtype, uint64_t n) {
  auto storage = std::make_shared<DeviceStorage>(state, device_buffer(*state, n * dtype.itemsize()));
  return {std::move(storage), dtype, 0, n};
}

// `host` (1-D, C-contiguous, of a dtype gpuscan has) copied into a new device array, through a mapped
// staging buffer.
DeviceArray upload(const std::shared_ptr<State>& state, const py::array& host) {
  DeviceArray out = new_device_array(state, host.dtype(), static_cast<uint64_t>(host.size()));
  const uint64_t bytes = out.nbytes();
  if (bytes == 0) return out;
  tk::Buffer staging = device_buffer(*state, bytes, tk::Memory::host_visible, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  std::memcpy(staging.mapped(), host.data(), bytes);
  const VkBuffer dst = out.storage()->buffer.handle();
  run_on_device(*state, [&](VkCommandBuffer cmd) {
    tk::copy_with_barrier(state->ctx, cmd, staging.handle(), dst, bytes, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT);
  });
  return out;
}

// The array as a new numpy array. A view's bytes are copied from the start of its buffer (the copy
// helper copies from offset 0) and the view's part taken on the host.
py::array download(const DeviceArray& a, const char* function) {
  const std::shared_ptr<State>& state = a.state(function);
  py::array out = py::module_::import("numpy").attr("empty")(a.size(), a.dtype());
  if (a.size() == 0) return out;
  const uint64_t bytes = a.offset_bytes() + a.nbytes();
  tk::Buffer staging = device_buffer(*state, bytes, tk::Memory::host_readback, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  const VkBuffer src = a.storage()->buffer.handle();
  run_on_device(*state, [&](VkCommandBuffer cmd) {
    tk::copy_with_barrier(state->ctx, cmd, src, staging.handle(), bytes, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                          VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  });
  std::memcpy(out.mutable_data(), static_cast<const std::byte*>(staging.mapped()) + a.offset_bytes(), a.nbytes());
  return out;
}

// `obj` as a host array a device array can hold: 1-D, of uint32, int32, float32, uint64, int64 or float64.
py::array device_host_array(const py::object& obj, const char* function) {
  const py::array a = input_array(obj, function);
  if (!native_dtype(a.dtype()))
    throw py::type_error(std::string(function) + "(): device arrays hold dtype uint32, int32, float32, uint64, "
                         "int64 or float64, not " + dtype_name(a.dtype()) +
                         " (convert first, e.g. a.astype(numpy.int32) for bool and 8- and 16-bit integers)");
  if (a.ndim() != 1)
    throw py::value_error(std::string(function) + "(): device arrays are 1-D; this array has shape " +
                          std::string(py::str(py::tuple(a.attr("shape")))) + " (pass a.ravel())");
  return a;
}

[[noreturn]] void foreign_array(const std::string& function) {
  throw py::value_error(function + "(): a device array of another gpuscan.Context (arrays of different Contexts "
                        "do not mix); move it with ctx.asarray(a.get())");
}

// The argument as a device array of `state`: a device array of that Context as it is (ValueError for
// another Context's), anything else converted on the host by `host` and uploaded.
DeviceArray on_device(const std::shared_ptr<State>& state, const py::object& obj, const char* function,
                      const std::function<py::array(const py::object&)>& host = {}) {
  if (const DeviceArray* d = as_device(obj)) {
    if (d->state(function) != state)
      foreign_array(function);
    return *d;
  }
  return upload(state, host ? host(obj) : device_host_array(obj, function));
}

// A small host-visible buffer the GPU writes and the host reads after run_on_device (counts, scalars).
tk::Buffer readback_buffer(const State& state, uint64_t bytes) {
  return device_buffer(state, bytes, tk::Memory::host_readback);
}

gpuscan::PlanLimits device_limits(uint64_t count, std::initializer_list<const DeviceArray*> arrays) {
  const bool aligned = std::ranges::all_of(arrays, [](const DeviceArray* a) { return !a || a->vector_aligned(); });
  return {.max_count = count, .vector_aligned = aligned, .prepare = false};
}

void check_op(gpuscan::Op op, const DeviceArray& a, const char* function) {
  if (!gpuscan::op_supports(op, a.type()))
    throw py::value_error(std::string(function) + "(): op='" + std::string(gpuscan::to_string(op)) +
                          "' is defined on integer dtypes only, not " + dtype_name(a.dtype()));
}

// python/widen.comp, compiled by glslc at build time.
constexpr uint32_t widen_spirv[] = {
#include "widen.words"
};

// `a` (int32 or uint32) as a new array of the 8-byte integer dtype `to`, extended by a's signedness (as
// numpy's astype), by the module's own kernel (python/widen.comp) through testkit::record_kernel: one
// dispatch per window that fits one storage binding, each bound at an offset the device accepts.
DeviceArray device_widen(const std::shared_ptr<State>& state, const DeviceArray& a, const py::dtype& to) {
  DeviceArray out = new_device_array(state, to, a.size());
  if (a.size() == 0) return out;
  const gpuscan::DeviceInfo& info = state->ctx.device_info();
  const VkBuffer src = a.storage()->buffer.handle(), dst = out.storage()->buffer.handle();
  const VkDeviceSize src_bytes = a.storage()->buffer.size();
  const uint64_t align = std::max<uint64_t>(info.min_storage_buffer_offset_alignment, 4);
  // Elements per window: its output (8 bytes each) and its input (4 each, from up to `align` bytes
  // before it) within one binding; a multiple of the workgroup, at most 2^30 (the kernel's word indices).
  const uint64_t window = std::min<uint64_t>((info.max_storage_buffer_range - align) / 8 / 256 * 256, 1u << 30);
  const std::string kernel = "gpuscan_python.widen";
  tk::add_kernel(state->ctx, kernel, widen_spirv);
  run_on_device(*state, [&](VkCommandBuffer cmd) {
    for (uint64_t start = 0; start < a.size(); start += window) {
      const uint64_t n = std::min(window, a.size() - start);
      const uint64_t src_at = (a.offset() + start) * 4, src_base = src_at / align * align;
      const uint64_t groups = (n + 255) / 256;
      const auto gx = static_cast<uint32_t>(std::min<uint64_t>(groups, info.max_workgroup_count[0]));
      const auto gy = static_cast<uint32_t>((groups + gx - 1) / gx);
      const VkDescriptorBufferInfo buffers[2] = {{src, src_base, std::min(src_bytes - src_base, src_at - src_base + n * 4)},
                                                 {dst, start * 8, n * 8}};
      const uint32_t params[5] = {static_cast<uint32_t>(n), static_cast<uint32_t>((src_at - src_base) / 4), 0,
                                  a.dtype().kind() == 'i' ? 1u : 0u, gx * 256};
      tk::record_kernel(state->ctx, cmd, kernel, {}, buffers, params, gx, gy);
    }
  });
  return out;
}

py::object device_scan(const std::shared_ptr<State>& state, const DeviceArray& a, gpuscan::ScanConfig config,
                       const char* function) {
  check_op(config.op, a, function);
  config.type = a.type();
  DeviceArray out = new_device_array(state, a.dtype(), a.size());
  if (a.size() > 0) {
    const gpuscan::Plan<gpuscan::primitive::Scan> plan(state->ctx, {config}, device_limits(a.size(), {&a}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = a.size(), .input = a.view(), .output = out.view(), .temp = temp.view()});
    });
  }
  return py::cast(out);
}

// One element of `a` (or the reduction's output) read back as a numpy scalar of its dtype.
py::object scalar_at(const void* bytes, const py::dtype& dtype) {
  py::array one = py::module_::import("numpy").attr("empty")(1, dtype);
  std::memcpy(one.mutable_data(), bytes, static_cast<size_t>(dtype.itemsize()));
  return one.attr("__getitem__")(0);
}

py::object device_reduce(const std::shared_ptr<State>& state, const DeviceArray& a, gpuscan::Op op) {
  check_op(op, a, "reduce");
  const gpuscan::Plan<gpuscan::primitive::Reduce> plan(state->ctx, {{.type = a.type(), .op = op}},
                                                       device_limits(a.size(), {&a}));
  tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
  tk::Buffer result = readback_buffer(*state, a.itemsize());
  run_on_device(*state, [&](VkCommandBuffer cmd) {
    plan.record(cmd, {.count = a.size(), .input = a.view(), .output = result.view(), .temp = temp.view()});
  });
  return scalar_at(result.mapped(), a.dtype());
}

// Sorts `keys` (with `values`, 4 or 8 bytes each, or none) into new arrays: (keys, values or None).
std::pair<DeviceArray, std::optional<DeviceArray>> device_sort(const std::shared_ptr<State>& state,
                                                               const DeviceArray& keys, const DeviceArray* values,
                                                               bool descending, const std::string& algorithm) {
  if (keys.size() > UINT32_MAX)
    throw py::value_error("sort takes at most 2**32 - 1 keys, not " + std::to_string(keys.size()));
  gpuscan::SortConfig config{.key_type = keys.type(), .descending = descending, .algorithm = sort_algorithm(algorithm)};
  if (values) config.value_bytes = static_cast<uint32_t>(values->itemsize());
  DeviceArray keys_out = new_device_array(state, keys.dtype(), keys.size());
  std::optional<DeviceArray> values_out;
  if (values) values_out = new_device_array(state, values->dtype(), values->size());
  if (keys.size() > 0) {
    const gpuscan::Plan<gpuscan::primitive::Sort> plan(state->ctx, {config}, device_limits(keys.size(), {&keys, values}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = keys.size(),
                        .keys_in = keys.view(),
                        .keys_out = keys_out.view(),
                        .values_in = values ? values->view() : gpuscan::BufferView{},
                        .values_out = values ? values_out->view() : gpuscan::BufferView{},
                        .temp = temp.view()});
    });
  }
  return {std::move(keys_out), std::move(values_out)};
}

// argsort: the positions as intp, as numpy's, moved as the values of a pair sort of an uploaded arange
// (the sort's own positions are 4-byte).
py::object device_argsort(const std::shared_ptr<State>& state, const DeviceArray& keys, bool descending,
                          const std::string& algorithm) {
  const py::array positions = py::module_::import("numpy").attr("arange")(keys.size(), py::arg("dtype") = "intp");
  const DeviceArray iota = upload(state, positions);
  return py::cast(*device_sort(state, keys, &iota, descending, algorithm).second);
}

// compact / partition / the run starts of unique: a Select record; the count comes back to size the
// result, a view of the first `kept` elements of the output (partition: all of them, and the count).
// `direct`: a predicate given in C++, `pred` then ignored.
py::object device_select(const std::shared_ptr<State>& state, const DeviceArray& a, const py::object& pred,
                         gpuscan::CompactConfig config, bool partition, const char* function,
                         const gpuscan::Predicate* direct = nullptr) {
  config.type = a.type();
  gpuscan::primitive::Select d{.config = config, .partition = partition};
  gpuscan::Predicate predicate;
  std::optional<DeviceArray> flags;
  if (direct) {
    predicate = *direct;
    d.predicate = predicate.kind;
  } else if (py::isinstance<py::str>(pred)) {
    try {
      predicate = gpuscan::parse_predicate(pred.cast<std::string>(), config.type);
    } catch (const gpuscan::Error& e) {
      throw py::value_error(e.what());
    }
    d.predicate = predicate.kind;
  } else {
    const DeviceArray* given = as_device(pred);
    if (given && (given->itemsize() != 4 || given->dtype().kind() == 'f'))
      throw py::type_error(std::string(function) + "(): a mask on the device is a 4-byte integer array (non-zero: "
                           "kept), not " + dtype_name(given->dtype()));
    flags = on_device(state, pred, function, [&](const py::object& m) {
      return py::array(flags_from_mask(m, static_cast<py::ssize_t>(a.size()), function, "pred"));
    });
    if (flags->size() != a.size())
      throw py::value_error(std::string(function) + "(): `pred` has " + std::to_string(flags->size()) +
                            " entries; it needs one per element (" + std::to_string(a.size()) + ")");
    d.flagged = true;
  }
  DeviceArray out = new_device_array(state, a.dtype(), a.size());
  uint64_t kept = 0;
  if (a.size() > 0) {
    const gpuscan::Plan<gpuscan::primitive::Select> plan(
        state->ctx, d, device_limits(a.size(), {&a, flags ? &*flags : nullptr}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    tk::Buffer count = readback_buffer(*state, 4);
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = a.size(),
                        .input = a.view(),
                        .flags = flags ? flags->view() : gpuscan::BufferView{},
                        .predicate = predicate,
                        .output = out.view(),
                        .count_out = count.view(),
                        .temp = temp.view()});
    });
    std::memcpy(&kept, count.mapped(), 4);
  }
  if (partition) return py::make_tuple(out, kept);
  return py::cast(out.slice(0, kept));
}

// How many elements of a float array are NaN (a Select of the non-NaN ones, counted); 0 for integers.
uint64_t device_nan_count(const std::shared_ptr<State>& state, const DeviceArray& a) {
  if (a.dtype().kind() != 'f' || a.size() == 0) return 0;
  const auto numbers = [](auto inf) { return gpuscan::Predicate::in_range(-inf, inf); };  // NaN compares false
  const gpuscan::Predicate predicate = a.itemsize() == 4 ? numbers(std::numeric_limits<float>::infinity())
                                                         : numbers(std::numeric_limits<double>::infinity());
  const DeviceArray kept = device_select(state, a, py::none(), {}, false, "unique", &predicate).cast<DeviceArray>();
  return a.size() - kept.size();
}

// segmented_scan: heads from flags (a 4-byte integer device array, or a host mask uploaded as u32) or keys
// (a 4- or 8-byte integer array).
py::object device_segmented(const std::shared_ptr<State>& state, const DeviceArray& a, const py::object& flags,
                            const py::object& keys, gpuscan::ScanConfig config) {
  const char* function = "segmented_scan";
  check_op(config.op, a, function);
  config.type = a.type();
  const auto n = static_cast<py::ssize_t>(a.size());
  gpuscan::SegmentHeads kind = gpuscan::SegmentHeads::flags;
  DeviceArray heads = [&] {
    if (!flags.is_none()) {
      const DeviceArray* given = as_device(flags);
      if (given && (given->itemsize() != 4 || given->dtype().kind() == 'f'))
        throw py::type_error("segmented_scan(): flags on the device are a 4-byte integer array, not " +
                             dtype_name(given->dtype()));
      return on_device(state, flags, function, [&](const py::object& m) {
        return py::array(flags_from_mask(m, n, function, "flags"));
      });
    }
    DeviceArray k = on_device(state, keys, function, [&](const py::object& obj) {
      return py::array(empty_sequence_as(obj, input_array(obj, function), "int64"));
    });
    const char dk = k.dtype().kind();
    if (dk != 'i' && dk != 'u')
      throw py::type_error("segmented_scan() takes keys as an array of 32- or 64-bit integers");
    kind = k.itemsize() == 8 ? gpuscan::SegmentHeads::keys_u64 : gpuscan::SegmentHeads::keys_u32;
    return k;
  }();
  if (heads.size() != a.size())
    throw py::value_error(std::string(function) + "(): the flags or keys have " + std::to_string(heads.size()) +
                          " entries; they need one per element (" + std::to_string(a.size()) + ")");
  DeviceArray out = new_device_array(state, a.dtype(), a.size());
  if (a.size() > 0) {
    const gpuscan::Plan<gpuscan::primitive::SegmentedScan> plan(state->ctx, {config, kind},
                                                                device_limits(a.size(), {&a, &heads}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = a.size(), .input = a.view(), .heads = heads.view(), .output = out.view(),
                        .temp = temp.view()});
    });
  }
  return py::cast(out);
}

// segmented_reduce: offsets checked on the host as for numpy input (a device array of offsets is read
// back for that: S + 1 words), then uploaded.
py::object device_segmented_reduce(const std::shared_ptr<State>& state, const DeviceArray& a,
                                   const py::object& offsets, gpuscan::Op op) {
  check_op(op, a, "segmented_reduce");
  const DeviceArray* given = as_device(offsets);
  if (given && given->state("segmented_reduce") != state)
    foreign_array("segmented_reduce");
  const py::array host = offsets_u32(given ? py::object(download(*given, "segmented_reduce")) : offsets,
                                     static_cast<py::ssize_t>(a.size()));
  const uint64_t segments = static_cast<uint64_t>(host.size()) - 1;
  DeviceArray out = new_device_array(state, a.dtype(), segments);
  if (segments > 0) {
    const DeviceArray offs = upload(state, host);
    const gpuscan::Plan<gpuscan::primitive::SegmentedReduce> plan(state->ctx, {{.type = a.type(), .op = op}},
                                                                  device_limits(a.size(), {&a}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = a.size(), .segments = segments, .input = a.view(), .offsets = offs.view(),
                        .output = out.view(), .temp = temp.view()});
    });
  }
  return py::cast(out);
}

// custom_scan of a 1-D device array: each element one T of the array's itemsize (a custom operator over
// structures needs host rows: those arrays are not device arrays).
py::object device_custom_scan(const std::shared_ptr<State>& state, const DeviceArray& a, const std::string& glsl,
                              bool inclusive) {
  gpuscan::ScanConfig config;
  config.kind = inclusive ? gpuscan::ScanKind::inclusive : gpuscan::ScanKind::exclusive;
  config.custom_op = gpuscan::CustomOp{glsl, static_cast<uint32_t>(a.dtype().itemsize())};
  DeviceArray out = new_device_array(state, a.dtype(), a.size());
  if (a.size() == 0) {
    py::gil_scoped_release release;
    gpuscan::compile_custom_op(state->ctx, *config.custom_op);  // still checks the snippet
    return py::cast(out);
  }
  const gpuscan::Plan<gpuscan::primitive::Scan> plan(state->ctx, {config}, device_limits(a.size(), {&a}));
  tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
  run_on_device(*state, [&](VkCommandBuffer cmd) {
    plan.record(cmd, {.count = a.size(), .input = a.view(), .output = out.view(), .temp = temp.view()});
  });
  return py::cast(out);
}

[[noreturn]] void not_on_device(const std::string& message) {
  PyErr_SetString(PyExc_NotImplementedError, message.c_str());
  throw py::error_already_set();
}

// histogram of a device array: the edges are numpy's (histogram_bin_edges), with a bin count and no
// range taken over the samples' minimum and maximum, reduced on the GPU; the counts come back to the
// host, as numpy's intp, with the edges.
py::object device_histogram(const std::shared_ptr<State>& state, const DeviceArray& a, const py::object& bins,
                            const py::object& range, const py::object& density) {
  const py::module_ np = py::module_::import("numpy");
  if (py::isinstance<py::str>(bins))
    not_on_device("histogram(): bins given by name ('auto', 'fd', ...) need the samples on the host; for a device "
                  "array pass a bin count or the edges");
  py::array probe = np.attr("empty")(0, a.dtype());  // what numpy's edges depend on: the dtype, and the bounds
  std::optional<py::tuple> bounds;  // the samples' (min, max), reduced on the GPU
  const auto min_max = [&] {
    if (!bounds)
      bounds = py::make_tuple(device_reduce(state, a, gpuscan::Op::min), device_reduce(state, a, gpuscan::Op::max));
    return *bounds;
  };
  if (np.attr("ndim")(bins).cast<int>() == 0 && range.is_none() && a.size() > 0) {
    const bool nan = device_nan_count(state, a) > 0;  // numpy's "autodetected range of [nan, nan]" ValueError
    const py::object nan_value = np.attr("nan");
    probe = np.attr("array")(nan ? py::make_tuple(nan_value, nan_value) : min_max(), a.dtype());
  }
  const py::array edges = np.attr("histogram_bin_edges")(probe, bins, range);
  // numpy compares 64-bit integer samples with float edges in float64; within +-2^53 that conversion is
  // exact, and the GPU's exact comparison is the same.
  const char k = a.dtype().kind();
  if ((k == 'i' || k == 'u') && a.itemsize() == 8 && a.size() > 0 &&
      (edges.dtype().kind() == 'f' || py::dtype::from_args(np.attr("result_type")(a.dtype(), edges.dtype())).kind() == 'f')) {
    const py::int_ exact(int64_t{1} << 53);
    const py::tuple mm = min_max();
    if (py::int_(mm[0]) < py::int_(-int64_t{1} * (int64_t{1} << 53)) || py::int_(mm[1]) > exact)
      not_on_device("histogram(): numpy compares " + dtype_name(a.dtype()) + " samples beyond 2^53 with float "
                    "edges after rounding them to float64 on the host; for such a device array use integer edges");
  }
  const gpuscan::HistogramBins b = histogram_bins(edges, probe);
  std::vector<uint64_t> counts;
  if (b.edges.size() >= 2 && a.size() > 0) {
    const bool wide = a.size() > UINT32_MAX;
    const gpuscan::HistogramConfig config{.type = a.type(),
                                          .counts = wide ? gpuscan::DataType::u64 : gpuscan::DataType::u32,
                                          .last_bin_closed = true};
    const gpuscan::Plan<gpuscan::primitive::Histogram> plan(state->ctx, {config, b}, device_limits(a.size(), {&a}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    tk::Buffer out = readback_buffer(*state, b.num_bins() * (wide ? 8 : 4));
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = a.size(), .input = a.view(), .counts = out.view(), .temp = temp.view()});
    });
    counts.resize(b.num_bins());
    for (uint32_t i = 0; i < b.num_bins(); ++i) {
      if (wide) std::memcpy(&counts[i], static_cast<const std::byte*>(out.mapped()) + 8 * i, 8);
      else counts[i] = static_cast<const uint32_t*>(out.mapped())[i];
    }
  } else if (b.edges.size() >= 2) {
    counts.assign(b.num_bins(), 0);
  }
  return histogram_result(counts, edges, density);
}

// unique_by_key on the device: two flagged selections by the keys (where a key run starts), one of the
// values and one of the keys themselves.
py::tuple device_unique_by_key(const std::shared_ptr<State>& state, const py::object& keys_obj,
                               const py::object& values_obj, const std::string& algorithm) {
  const char* function = "unique_by_key";
  const DeviceArray keys = on_device(state, keys_obj, function);
  const DeviceArray values = on_device(state, values_obj, function);
  const char kk = keys.dtype().kind();
  if (kk != 'u' && kk != 'i')
    throw py::type_error(std::string(function) + "() takes integer keys (compared exactly), not " +
                         dtype_name(keys.dtype()));
  if (keys.size() != values.size())
    throw py::value_error(std::string(function) + "() takes 1-D keys and values of the same length, not " +
                          std::to_string(keys.size()) + " keys and " + std::to_string(values.size()) + " values");
  const gpuscan::SegmentHeads heads =
      keys.itemsize() == 8 ? gpuscan::SegmentHeads::keys_u64 : gpuscan::SegmentHeads::keys_u32;
  const uint64_t n = keys.size();
  DeviceArray keys_out = new_device_array(state, keys.dtype(), n);
  DeviceArray values_out = new_device_array(state, values.dtype(), n);
  uint64_t kept = 0;
  if (n > 0) {
    gpuscan::CompactConfig config = make_compact_config("auto", algorithm);
    const auto plan_for = [&](const DeviceArray& elements) {
      config.type = elements.type();
      return gpuscan::Plan<gpuscan::primitive::Select>(
          state->ctx, {.config = config, .flagged = true, .flags_kind = heads}, device_limits(n, {&keys, &values}));
    };
    const auto value_plan = plan_for(values), key_plan = plan_for(keys);
    tk::Buffer value_temp = temp_buffer(*state, value_plan.temp_requirements());
    tk::Buffer key_temp = temp_buffer(*state, key_plan.temp_requirements());
    tk::Buffer counts = readback_buffer(*state, 8);
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      value_plan.record(cmd, {.count = n, .input = values.view(), .flags = keys.view(), .output = values_out.view(),
                              .count_out = counts.view(0), .temp = value_temp.view()});
      key_plan.record(cmd, {.count = n, .input = keys.view(), .flags = keys.view(), .output = keys_out.view(),
                            .count_out = counts.view(4), .temp = key_temp.view()});
    });
    std::memcpy(&kept, counts.mapped(), 4);
  }
  return py::make_tuple(keys_out.slice(0, kept), values_out.slice(0, kept));
}

// The runs of a device array (a RunLength record): each run's first element (encode) or start
// (non-trivial), and its length, as int64 (numpy's intp), widened from the kernel's u32 on the GPU. The
// run count comes back to size the results.
struct DeviceRuns {
  std::optional<DeviceArray> values, offsets;
  DeviceArray lengths;
};

DeviceRuns device_runs(const std::shared_ptr<State>& state, const DeviceArray& a, gpuscan::primitive::RunLength d) {
  d.config.type = a.type();
  const uint64_t n = a.size();
  const py::dtype u32 = py::dtype::of<uint32_t>(), intp = py::dtype::of<std::intptr_t>();
  const uint64_t room = d.non_trivial ? n / 2 : n;
  DeviceArray values = new_device_array(state, a.dtype(), d.non_trivial ? 0 : n);
  DeviceArray lengths = new_device_array(state, u32, room), offsets = new_device_array(state, u32, d.non_trivial ? room : 0);
  uint64_t runs = 0;
  if (n > 0) {
    const gpuscan::Plan<gpuscan::primitive::RunLength> plan(state->ctx, d, device_limits(n, {&a}));
    tk::Buffer temp = temp_buffer(*state, plan.temp_requirements());
    tk::Buffer count = readback_buffer(*state, 4);
    run_on_device(*state, [&](VkCommandBuffer cmd) {
      plan.record(cmd, {.count = n,
                        .input = a.view(),
                        .values = d.non_trivial ? gpuscan::BufferView{} : values.view(),
                        .lengths = lengths.view(),
                        .offsets = d.non_trivial ? offsets.view() : gpuscan::BufferView{},
                        .count_out = count.view(),
                        .temp = temp.view()});
    });
    std::memcpy(&runs, count.mapped(), 4);
  }
  DeviceRuns out{.lengths = device_widen(state, lengths.slice(0, runs), intp)};
  if (d.non_trivial) out.offsets = device_widen(state, offsets.slice(0, runs), intp);
  else out.values = values.slice(0, runs);
  return out;
}

std::vector<py::object> device_primitive(const std::shared_ptr<State>& state, const char* function,
                                         const gpuscan::primitive::RunLength& d, const std::vector<py::object>& inputs) {
  const DeviceRuns runs = device_runs(state, on_device(state, inputs.at(0), function), d);
  return {py::cast(d.non_trivial ? *runs.offsets : *runs.values), py::cast(runs.lengths)};
}

// unique of a device array: the run starts (after a sort with sort=True). equal_nan=True (merging runs
// of NaNs) is only a difference where there are two NaNs or more; that case raises.
py::object device_unique(const std::shared_ptr<State>& state, const DeviceArray& a, bool return_counts,
                         const std::string& algorithm, bool sort, bool equal_nan, bool return_index,
                         bool return_inverse) {
  if (return_index || return_inverse)
    not_on_device("unique(): return_index and return_inverse are not supported for device arrays; pass a.get()");
  const gpuscan::CompactConfig config = make_compact_config("auto", algorithm);
  const DeviceArray input = sort ? device_sort(state, a, nullptr, false, "auto").first : a;
  if (equal_nan && device_nan_count(state, input) > 1)
    not_on_device("unique(): this device array holds several NaNs, and equal_nan=True (merging runs of NaNs) is "
                  "not supported for device arrays; pass equal_nan=False or a.get()");
  if (!return_counts) return device_select(state, input, py::str("run-start"), config, false, "unique");
  const DeviceRuns runs = device_runs(state, input, {.config = config});
  return py::make_tuple(*runs.values, runs.lengths);
}

// cumsum / cumprod of a device array: 1-D, in numpy's dtype (dtype=, else numpy's accumulate dtype:
// int64 and uint64 for int32 and uint32 on Linux, widened on the GPU first); other conversions raise.
py::object device_cumulative(const std::shared_ptr<State>& state, const DeviceArray& a, const py::object& axis,
                             const py::object& dtype, const py::object& out, gpuscan::Op op, const char* function) {
  if (!out.is_none())
    not_on_device(std::string(function) + "(): out= is not supported for a device array; the result is a new one");
  if (!axis.is_none()) normalize_axis(axis, 1);
  const char k = a.dtype().kind();
  const py::dtype result = !dtype.is_none() ? py::dtype::from_args(dtype)
                           : k == 'i' || k == 'u' ? accumulate_dtype(a.dtype(), op)
                                                  : a.dtype();
  const auto integer = [](const py::dtype& t) { return t.kind() == 'i' || t.kind() == 'u'; };
  const bool widen = integer(a.dtype()) && integer(result) && a.itemsize() == 4 && result.itemsize() == 8;
  if (!result.equal(a.dtype()) && !widen)
    throw py::type_error(std::string(function) + "(): accumulating " + dtype_name(a.dtype()) + " in " +
                         dtype_name(result) + " needs a conversion gpuscan does not run on the GPU (it widens 32-bit "
                         "integers to 64 bits only); upload a.astype(numpy." + dtype_name(result) + ")");
  gpuscan::ScanConfig config;
  config.kind = gpuscan::ScanKind::inclusive;
  config.op = op;
  return device_scan(state, widen ? device_widen(state, a, result) : a, config, function);
}

// gpuscan.Context. All access to state_ happens with the GIL held.
class ContextObject {
 public:
  explicit ContextObject(std::shared_ptr<State> state, bool is_default = false)
      : state_(std::move(state)), messages_(state_->messages), validation_(state_->validation), is_default_(is_default) {}

  std::shared_ptr<State> state() const {
    if (!state_) throw py::value_error("this gpuscan.Context is closed");
    return state_;
  }
  const std::shared_ptr<State>& raw_state() const { return state_; }  // null once closed
  bool closed() const { return !state_; }
  bool validation() const { return validation_; }
  bool is_default() const { return is_default_; }
  std::vector<std::string> take_validation_messages() const { return messages_->take(); }

  void close();  // below: the default Context also forgets itself

  // This Context's State for a call with device arrays among `arrays`: ValueError for an array of
  // another Context, or of a closed one.
  std::shared_ptr<State> device_state(std::initializer_list<py::handle> arrays, const char* function) const {
    std::shared_ptr<State> s = state();
    for (const py::handle& h : arrays)
      if (const DeviceArray* d = as_device(h); d && d->state(function) != s)
        foreign_array(function);
    return s;
  }
  // With device arrays among the inputs every input goes to the device (host arrays are uploaded) and the
  // results are device arrays; host arrays alone stay on the host paths.
  py::object asarray(const py::object& a) const {
    if (as_device(a)) {
      device_state({a}, "asarray");
      return a;
    }
    return py::cast(upload(state(), device_host_array(a, "asarray")));
  }
  py::object scan_call(const py::object& a, gpuscan::ScanKind kind, const std::string& op,
                       const std::string& algorithm, bool deterministic, const char* function) const {
    if (const DeviceArray* d = as_device(a)) {
      gpuscan::ScanConfig config = make_config(op, algorithm);
      config.kind = kind;
      config.deterministic = deterministic;
      return device_scan(device_state({a}, function), *d, config, function);
    }
    return scan(state(), a, kind, op, algorithm, deterministic, function);
  }
  py::object exclusive_scan(const py::object& a, const std::string& op, const std::string& algorithm,
                            bool deterministic) const {
    return scan_call(a, gpuscan::ScanKind::exclusive, op, algorithm, deterministic, "exclusive_scan");
  }
  py::object inclusive_scan(const py::object& a, const std::string& op, const std::string& algorithm,
                            bool deterministic) const {
    return scan_call(a, gpuscan::ScanKind::inclusive, op, algorithm, deterministic, "inclusive_scan");
  }
  py::object reduce(const py::object& a, const std::string& op) const {
    if (const DeviceArray* d = as_device(a)) return device_reduce(device_state({a}, "reduce"), *d, parse_op(op));
    return ::reduce(state(), a, op);
  }
  py::object sort(const py::object& a, bool descending, const std::string& algorithm) const {
    if (const DeviceArray* d = as_device(a))
      return py::cast(device_sort(device_state({a}, "sort"), *d, nullptr, descending, algorithm).first);
    return sort_array(state(), a, descending, algorithm);
  }
  py::object argsort(const py::object& a, bool descending, const std::string& algorithm) const {
    if (const DeviceArray* d = as_device(a)) return device_argsort(device_state({a}, "argsort"), *d, descending, algorithm);
    return argsort_array(state(), a, descending, algorithm);
  }
  py::tuple sort_pairs(const py::object& keys, const py::object& values, bool descending,
                       const std::string& algorithm) const {
    if (any_device({keys, values})) {
      const std::shared_ptr<State> s = device_state({keys, values}, "sort_pairs");
      const DeviceArray k = on_device(s, keys, "sort_pairs"), v = on_device(s, values, "sort_pairs");
      if (v.size() != k.size())
        throw py::value_error("sort_pairs() needs a 1-D values array as long as the keys (" + std::to_string(k.size()) +
                              " values)");
      auto [sorted_keys, sorted_values] = device_sort(s, k, &v, descending, algorithm);
      return py::make_tuple(sorted_keys, *sorted_values);
    }
    return sort_pairs_arrays(state(), keys, values, descending, algorithm);
  }
  py::object histogram(const py::object& a, const py::object& bins, const py::object& range, const py::object& density,
                       const py::object& weights) const {
    if (const DeviceArray* d = as_device(a); d && weights.is_none())
      return device_histogram(device_state({a}, "histogram"), *d, bins, range, density);
    return ::histogram(state(), a, bins, range, density, weights);  // weights=: its NotImplementedError
  }
  py::object custom_scan(const py::object& a, const std::string& glsl, bool inclusive) const {
    if (const DeviceArray* d = as_device(a))
      return device_custom_scan(device_state({a}, "custom_scan"), *d, glsl, inclusive);
    return ::custom_scan(state(), a, glsl, inclusive);
  }
  py::object compact_call(const py::object& a, const py::object& pred, const std::string& path,
                          const std::string& algorithm, bool partition) const {
    const char* function = partition ? "partition" : "compact";
    if (any_device({a, pred})) {
      const std::shared_ptr<State> s = device_state({a, pred}, function);
      return device_select(s, on_device(s, a, function), pred, make_compact_config(path, algorithm), partition,
                           function);
    }
    return ::compact(state(), a, pred, path, algorithm, partition);
  }
  py::object compact(const py::object& a, const py::object& pred, const std::string& path,
                     const std::string& algorithm) const {
    return compact_call(a, pred, path, algorithm, false);
  }
  py::tuple unique_by_key(const py::object& keys, const py::object& values, const std::string& algorithm) const {
    if (any_device({keys, values}))
      return device_unique_by_key(device_state({keys, values}, "unique_by_key"), keys, values, algorithm);
    return ::unique_by_key(state(), keys, values, algorithm);
  }
  py::object unique(const py::object& a, bool return_counts, const std::string& algorithm, bool sort,
                    bool equal_nan, bool return_index, bool return_inverse) const {
    if (const DeviceArray* d = as_device(a))
      return device_unique(device_state({a}, "unique"), *d, return_counts, algorithm, sort, equal_nan, return_index,
                           return_inverse);
    const bool positions = return_index || return_inverse;
    // With sort: the runs are those of `a` sorted, and `order` maps each sorted position to its input one.
    py::object input = a, order = py::none();
    if (sort) std::tie(input, order) = sorted_for_unique(a, positions);
    py::object values, counts = py::none();
    if (return_counts || positions) {
      gpuscan::primitive::RunLength d{.config = make_compact_config("auto", algorithm)};
      const std::vector<py::object> r = run_primitive(state(), "unique", d, {input});
      values = r[0];
      counts = r[1];
    } else {
      values = ::compact(state(), input, py::str("run-start"), "auto", algorithm, false);
    }
    if (equal_nan) std::tie(values, counts) = merge_nan_runs(values, counts);
    if (!return_counts && !positions) return values;
    py::list out;
    out.append(values);
    if (positions) {
      // From the run lengths, on the host: where each run starts (index) and each element's run (inverse),
      // taken back to input positions through the sort's order.
      const py::module_ np = py::module_::import("numpy");
      const py::object runs = np.attr("arange")(py::len(counts), py::arg("dtype") = "intp");
      const py::object starts = np.attr("subtract")(np.attr("cumsum")(counts), counts);
      if (return_index) out.append(order.is_none() ? starts : order.attr("__getitem__")(starts));
      if (return_inverse) {
        py::object inverse = np.attr("repeat")(runs, counts);
        if (!order.is_none()) {
          py::object scattered = np.attr("empty_like")(inverse);
          scattered.attr("__setitem__")(order, inverse);
          inverse = scattered;
        }
        out.append(inverse);
      }
    }
    if (return_counts) out.append(counts);
    return py::tuple(out);
  }
  // unique(sort=True)'s input: `a` sorted by the radix sort, and with `order` each sorted element's input
  // position (intp; None without), from the same stable sort. bool and integers narrower than 4 bytes, which
  // the sort does not take, are sorted as 4-byte integers of the same order and narrowed back.
  std::pair<py::object, py::object> sorted_for_unique(const py::object& a, bool order) const {
    const py::array arr = input_array(a, "unique");
    const char kind = arr.dtype().kind();
    const bool narrow = arr.itemsize() < 4 && (kind == 'b' || kind == 'i' || kind == 'u');
    const py::array keys = narrow ? py::array(arr.attr("astype")(kind == 'i' ? "int32" : "uint32")) : arr;
    if (!order) {
      const py::array sorted = sort_array(state(), keys, false, "auto");
      return {narrow ? sorted.attr("astype")(arr.dtype()) : py::object(sorted), py::none()};
    }
    const SortKeys k = sort_keys_of(keys, "unique");
    const gpuscan::SortedBytes out = run_sort(state(), k, nullptr, false, "auto", true);
    const py::array sorted = array_of(out.keys, k.array.dtype());
    std::vector<uint32_t> positions(out.values.size() / 4);
    if (!positions.empty()) std::memcpy(positions.data(), out.values.data(), out.values.size());
    return {narrow ? sorted.attr("astype")(arr.dtype()) : py::object(sorted), intp_array(positions)};
  }
  py::object partition(const py::object& a, const py::object& pred, const std::string& path,
                       const std::string& algorithm) const {
    return compact_call(a, pred, path, algorithm, true);
  }
  py::object segmented_scan(const py::object& a, const py::object& flags, const py::object& keys, const std::string& op,
                            bool inclusive) const {
    if (any_device({a, flags, keys})) {
      if (flags.is_none() == keys.is_none())
        throw py::value_error("segmented_scan() takes exactly one of flags= or keys=");
      const std::shared_ptr<State> s = device_state({a, flags, keys}, "segmented_scan");
      gpuscan::ScanConfig config = make_config(op, "auto");
      config.kind = inclusive ? gpuscan::ScanKind::inclusive : gpuscan::ScanKind::exclusive;
      return device_segmented(s, on_device(s, a, "segmented_scan"), flags, keys, config);
    }
    return segmented(state(), a, flags, keys, op, inclusive);
  }
  py::object segmented_reduce(const py::object& a, const py::object& offsets, const std::string& op) const {
    if (any_device({a, offsets})) {
      const std::shared_ptr<State> s = device_state({a, offsets}, "segmented_reduce");
      return device_segmented_reduce(s, on_device(s, a, "segmented_reduce"), offsets, parse_op(op));
    }
    return ::segmented_reduce(state(), a, offsets, op);
  }
  py::object cumulative_call(const py::object& a, const py::object& axis, const py::object& dtype,
                             const py::object& out, gpuscan::Op op, const char* function) const {
    if (const DeviceArray* d = as_device(a))
      return device_cumulative(device_state({a, out}, function), *d, axis, dtype, out, op, function);
    if (as_device(out)) not_on_device(std::string(function) + "(): out= is not supported for device arrays");
    return cumulative(state(), a, axis, dtype, out, op, function);
  }
  py::object cumsum(const py::object& a, const py::object& axis, const py::object& dtype, const py::object& out) const {
    return cumulative_call(a, axis, dtype, out, gpuscan::Op::add, "cumsum");
  }
  py::object cumprod(const py::object& a, const py::object& axis, const py::object& dtype, const py::object& out) const {
    return cumulative_call(a, axis, dtype, out, gpuscan::Op::mul, "cumprod");
  }
  std::string resolve_algorithm(uint64_t count, const std::string& algorithm) const {
    const gpuscan::ScanConfig config = make_config("add", algorithm);
    return std::string(gpuscan::to_string(state()->ctx.resolve(config, count)));
  }

 private:
  std::shared_ptr<State> state_;
  std::shared_ptr<MessageStore> messages_;  // outlives state_: messages at shutdown can still be taken
  bool validation_;
  bool is_default_;
};

// The module-level Context: g_default_state is created once under g_default_mutex (taken without the GIL,
// so a thread creating it never waits on a thread holding the GIL); g_default_object, the Python object
// wrapping it, only changes with the GIL held.
std::mutex g_default_mutex;
std::shared_ptr<State> g_default_state;
PyObject* g_default_object = nullptr;

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

py::object default_context() {
  if (g_default_object) return py::reinterpret_borrow<py::object>(g_default_object);
  std::shared_ptr<State> state;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(g_default_mutex);
    if (!g_default_state) g_default_state = create_state("", env_flag("GPUSCAN_VALIDATE"));
    state = g_default_state;
  }
  // Another thread may have wrapped it meanwhile (the GIL was released above).
  if (!g_default_object || py::cast<const ContextObject&>(py::handle(g_default_object)).raw_state() != state) {
    py::object object = py::cast(ContextObject(state, true));
    Py_XDECREF(g_default_object);
    g_default_object = object.release().ptr();
  }
  return py::reinterpret_borrow<py::object>(g_default_object);
}

// The Context a module-level call runs on: that of its first device array, else default_context().
ContextObject context_for(std::initializer_list<py::handle> arrays, const char* function) {
  for (const py::handle& h : arrays)
    if (const DeviceArray* d = as_device(h)) return ContextObject(d->state(function));
  return default_context().cast<ContextObject>();
}

void ContextObject::close() {
  std::shared_ptr<State> state = std::move(state_);
  if (!state) return;
  state->closed = true;
  if (is_default_ && g_default_object && py::cast<const ContextObject&>(py::handle(g_default_object)).closed()) {
    PyObject* object = std::exchange(g_default_object, nullptr);
    Py_DECREF(object);  // the caller still holds `self`
  }
  py::gil_scoped_release release;
  if (is_default_) {
    std::lock_guard lock(g_default_mutex);
    if (g_default_state == state) g_default_state.reset();
  }
  state.reset();  // destroys the Context unless a scan on another thread still holds it
}

void close_default_at_exit() {
  if (!g_default_object) return;
  py::object object = py::reinterpret_steal<py::object>(std::exchange(g_default_object, nullptr));
  object.cast<ContextObject&>().close();
}

std::string selector_from(const py::object& device) {
  if (device.is_none()) return "";
  if (py::isinstance<py::bool_>(device)) throw py::type_error("device must be None, an int index or a str");
  if (py::isinstance<py::int_>(device)) {
    const long long index = device.cast<long long>();
    if (index < 0) throw py::value_error("device index must be >= 0, not " + std::to_string(index));
    return std::to_string(index);
  }
  if (py::isinstance<py::str>(device)) return device.cast<std::string>();
  throw py::type_error("device must be None, an int index or a str (a substring of the device name), not " +
                       std::string(py::str(py::type::handle_of(device).attr("__name__"))));
}

// Makes `name` a method of gpuscan.Context and a module function (on default_context()) that run P as
// call_primitive() says, `fixed` flags set; the docstring starts with the call's form, from the signature.
template <class P>
void def_primitive(py::module_& m, py::class_<ContextObject>& context_class, const char* name, const char* doc,
                   std::vector<std::string_view> fixed = {}) {
  using S = gpuscan::Signature<P>;
  P d;
  std::string form = std::string(name) + "(a";
  const std::vector<gpuscan::ArraySpec> inputs = S::inputs(d);
  for (size_t i = 1; i < inputs.size(); ++i) form += ", " + python_name(inputs[i].name);
  form += ", *";
  for (const gpuscan::Setting& s : S::settings(d)) {
    if (s.element_type || std::ranges::find(fixed, s.name) != fixed.end()) continue;
    form += ", " + python_name(s.name) + "=" + (s.flag ? "False" : "'" + std::string(s.choices.front()) + "'");
  }
  const std::string docstring = form + ")\n\n" + doc;
  const std::string function = name;
  py::options options;  // the docstring's first line is the form above, not pybind11's (*args, **kwargs)
  options.disable_function_signatures();
  context_class.def(
      name,
      [function, fixed](const ContextObject& self, const py::args& args, const py::kwargs& kwargs) {
        return call_primitive<P>(self.state(), function, fixed, args, kwargs);
      },
      docstring.c_str());
  m.def(
      name,
      [function, fixed](const py::args& args, const py::kwargs& kwargs) {
        // On the Context of the first device array among the arguments, else on default_context().
        std::vector<py::handle> given(args.begin(), args.end());
        for (const auto& item : kwargs) given.push_back(item.second);
        const auto device = std::ranges::find_if(given, [](const py::handle& h) { return as_device(h) != nullptr; });
        return call_primitive<P>(device != given.end() ? as_device(*device)->state(function.c_str())
                                                       : default_context().cast<const ContextObject&>().state(),
                                 function, fixed, args, kwargs);
      },
      docstring.c_str());
}

}  // namespace


PYBIND11_MODULE(gpuscan, m) {
  m.doc() = R"(GPU prefix scans, reductions and stream compaction of numpy arrays on Vulkan, by gpuscan.

    import numpy as np, gpuscan
    a = np.array([3, 1, 7, 0, 4, 1, 6, 3], dtype=np.uint32)
    gpuscan.exclusive_scan(a)   # array([ 0,  3,  4, 11, 11, 15, 16, 22], dtype=uint32)
    gpuscan.inclusive_scan(a)   # array([ 3,  4, 11, 11, 15, 16, 22, 25], dtype=uint32)
    gpuscan.compact(a, "gt:3")  # array([7, 4, 6], dtype=uint32), as a[a > 3]; or compact(a, mask)

Scans, reductions and segmented scans take 1-D arrays of dtype uint32, int32, float32, uint64, int64 or
float64 (the 64-bit ones where the device has them), and so do compact and partition; any length;
integer sums wrap like numpy's. bool and 8- and 16-bit integers are converted as numpy's accumulate
converts them (np.cumsum of bool is int64); compaction keeps their dtype. cumsum(a, axis, dtype, out) and
cumprod(...) take numpy's arguments and dtype rules.
The module-level functions use default_context(): the device GPUSCAN_DEVICE names, or the first
discrete GPU, integrated GPU, virtual GPU, CPU; validation when GPUSCAN_VALIDATE=1. For another device or
validation, create a gpuscan.Context. The GIL is released while the GPU works.

Device arrays keep data on the GPU between calls, as CuPy's arrays do:
    d = gpuscan.asarray(a)                    # uploads once: a gpuscan.DeviceArray
    s = gpuscan.cumsum(gpuscan.sort(d))       # runs on the GPU, returns a DeviceArray
    s.get(), np.asarray(s)                    # back to numpy
Every function takes device arrays (1-D, of the six dtypes above) and returns device arrays; with a
device array among the inputs, host arrays given beside it are uploaded. reduce returns a numpy scalar,
histogram numpy (counts, edges), partition (DeviceArray, int). Arrays of different Contexts, or of a
closed one, raise ValueError. unique's return_index/return_inverse and out= raise NotImplementedError
for device arrays; custom_scan takes one whose elements are each one T of its item size.

Any array-like works, in any byte order or layout; positions, counts and lengths are numpy's intp.
Errors: numpy's exception types for bad input (TypeError for an unsupported dtype; ValueError for an
array that is not 1-D, bad offsets, bins or lengths, an unknown op (or a bitwise op on floats), an
unknown algorithm, a closed Context); gpuscan.Error (a RuntimeError) for what the device reports,
with .code such as "no_device", "unsupported", "too_large", "vulkan_error", "timeout".)";

  g_error_type = PyErr_NewExceptionWithDoc(
      "gpuscan.Error",
      "An error gpuscan reported. Attributes: code, the gpuscan::Errc name (\"no_device\", \"unsupported\", "
      "\"too_large\", \"invalid_argument\", \"vulkan_error\", \"timeout\", ...); vk_result, the VkResult's name "
      "where Vulkan reported one, else None; message, the sentence also in str(error).",
      PyExc_RuntimeError, nullptr);
  if (!g_error_type) throw py::error_already_set();
  m.add_object("Error", py::reinterpret_borrow<py::object>(g_error_type));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const gpuscan::Error& e) {
      raise_gpuscan_error(e);
    }
  });

  m.attr("version") = gpuscan::version;
  m.attr("__version__") = gpuscan::version;
  py::tuple names(std::size(algorithm_names));
  for (size_t i = 0; i < std::size(algorithm_names); ++i) names[i] = algorithm_names[i];
  m.attr("algorithms") = names;

  static const char* custom_scan_doc =
      "Scan with a custom operator written in GLSL (docs/scan.md, Custom operators): `glsl` defines T,\n"
      "identity() and combine(a, b) (associative, a the earlier element). Each element of `a` along its first\n"
      "axis is one T: a structured dtype, or the rows of an (n, k) array, whose byte size must be T's in a\n"
      "std430 array. The result has a's dtype and shape. Compile errors raise gpuscan.Error 'compile_error'.\n"
      "  affine = ('struct A { uint a; uint b; };\\n#define T A\\nT identity() { return A(1u, 0u); }\\n'\n"
      "            'T combine(T f, T g) { return A(g.a * f.a, g.a * f.b + g.b); }')\n"
      "  gpuscan.custom_scan(np.array([[2, 1], [3, 0], [1, 5]], np.uint32), affine, inclusive=True)\n"
      "  # array([[2, 1], [6, 3], [6, 8]], dtype=uint32)";
  static const char* compact_doc =
      "The elements of `a` that `pred` keeps, in order, as a new array: a[mask] for a mask, like numpy's\n"
      "boolean indexing. `a`: 1-D uint32, int32, float32, uint64, int64 or float64 (the 64-bit ones where the\n"
      "device has them; bool, 8- and 16-bit integers through their 32-bit widening). `pred`: a predicate\n"
      "string, as gpuscan compact\n"
      "--pred takes it ('nonzero', 'eq:C', 'ne:C', 'lt:C', 'le:C', 'gt:C', 'ge:C', 'bit:MASK',\n"
      "'range:LO:HI', 'run-start'; constants in a's dtype, integers also as 0x hex), or a boolean or integer mask of len(a)\n"
      "(kept where non-zero).\n"
      "path: 'auto', 'ballot', 'shared-memory'; algorithm: 'auto', 'three-pass', 'single-pass'.\n"
      "    gpuscan.compact(np.array([5, 0, 7], dtype=np.uint32), 'gt:4')   # array([5, 7], dtype=uint32)";
  static const char* histogram_doc =
      "numpy.histogram(a, bins, range, density) on the GPU: (counts as intp, or with density=True numpy's\n"
      "float64 density, edges). The edges are numpy.histogram_bin_edges', in its dtype, and bins and range\n"
      "raise numpy's errors; the last bin includes its upper edge. Samples of any integer or float dtype up\n"
      "to 64 bits, or bool (as uint8, as numpy); int64 and uint64 samples compared as numpy compares them:\n"
      "converted to float64 where the edges are floats (or their common dtype is), exactly against integer\n"
      "edges. A NaN edge is a ValueError; weights= a NotImplementedError.\n"
      "    gpuscan.histogram(np.array([1, 2, 2, 3], np.float32), bins=2)\n"
      "    # (array([1, 3]), array([1., 2., 3.], dtype=float32))";
  static const char* unique_doc =
      "The first element of every run of equal consecutive elements of `a`, in order (std::unique_copy):\n"
      "on sorted input numpy.unique(a, equal_nan=equal_nan). Elements compare as numbers (-0.0 == 0.0);\n"
      "equal_nan=True (numpy's default) makes a run of consecutive NaNs one run, equal_nan=False each NaN\n"
      "its own. dtypes as compact(); algorithm: 'auto', 'three-pass', 'single-pass'. return_counts=True\n"
      "also returns each run's length (intp), as numpy.unique(a, return_counts=True) does on sorted input\n"
      "(Vulkan only: run_length_encode). sort=True sorts `a` first (sort(), stable, NaNs last; bool and\n"
      "narrow integers as 4-byte ones), so that any input gives numpy.unique(a, equal_nan=equal_nan) (of\n"
      "equal -0.0 and +0.0, and of NaNs, the first in input order is kept). return_index=True and\n"
      "return_inverse=True (keyword-only; Vulkan only, as return_counts) also return, as numpy.unique does,\n"
      "where each value first occurs in `a` and, for each element of `a`, its value's index in the result;\n"
      "without sort, of the runs: where each starts, and each element's run. The results come in numpy's\n"
      "order (values, index, inverse, counts); the sort and run lengths run on the GPU, the index and inverse\n"
      "are taken from them on the host (numpy).\n"
      "    gpuscan.unique(np.array([3, 3, 1, 1, 3, 7], dtype=np.uint32))   # array([3, 1, 3, 7], dtype=uint32)\n"
      "    gpuscan.unique(np.array([3, 3, 1, 1, 3, 7], dtype=np.uint32), sort=True)   # array([1, 3, 7], ...)\n"
      "    gpuscan.unique(np.array([1, 1, 2]), return_counts=True)         # (array([1, 2]), array([2, 1]))\n"
      "    gpuscan.unique(np.array([5, 2, 5, 9], np.int32), sort=True, return_index=True, return_inverse=True)\n"
      "    # (array([2, 5, 9], dtype=int32), array([1, 0, 3]), array([1, 0, 1, 2]))";
  static const char* run_length_encode_doc =
      "(values, lengths): the first element of every run of equal consecutive elements of `a` and the run's\n"
      "length (intp), as CUB's DeviceRunLengthEncode::Encode. Elements compare as numbers (-0.0 == 0.0,\n"
      "every NaN its own run: unique(equal_nan=False)); dtypes as compact(). Vulkan only.\n"
      "    gpuscan.run_length_encode(np.array([7, 7, 7, 2, 5, 5], np.uint32))\n"
      "    # (array([7, 2, 5], dtype=uint32), array([3, 1, 2]))";
  static const char* non_trivial_runs_doc =
      "(offsets, lengths): where each run of two or more equal consecutive elements of `a` starts and its\n"
      "length, both intp (CUB's DeviceRunLengthEncode::NonTrivialRuns). Runs as run_length_encode();\n"
      "dtypes as compact(). Vulkan only.\n"
      "    gpuscan.non_trivial_runs(np.array([7, 7, 7, 2, 5, 5], np.uint32))\n"
      "    # (array([0, 4]), array([3, 2]))";
  static const char* unique_by_key_doc =
      "(keys, values): the first of every run of equal consecutive keys and the value beside it, in order\n"
      "(CUB's DeviceSelect::UniqueByKey). keys: 1-D integers or bool (compared exactly); values: a dtype as\n"
      "compact() takes, as many as keys. algorithm: 'auto', 'three-pass', 'single-pass'.\n"
      "    gpuscan.unique_by_key(np.array([5, 5, 9, 2], np.uint32), np.array([1., 2., 3., 4.]))\n"
      "    # (array([5, 9, 2], dtype=uint32), array([1., 3., 4.]))";
  static const char* partition_doc =
      "(values, kept): every element of `a`, those `pred` keeps first, then the others, both in input order\n"
      "(np.concatenate([a[m], a[~m]]) for a boolean mask m), and the number kept. Arguments as compact().\n"
      "    gpuscan.partition(np.array([5, 0, 7], dtype=np.int32), 'nonzero')   # (array([5, 7, 0], dtype=int32), 2)";
  static const char* cumsum_doc =
      "numpy.cumsum(a, axis, dtype, out) on the GPU, with numpy's arguments and dtype rules: axis=None scans\n"
      "a.ravel(); an axis of an N-D array scans every row along it (a segmented scan). dtype=None takes\n"
      "numpy's accumulate dtype (bool and integers narrower than int64 sum in int64, unsigned ones in\n"
      "uint64); dtype= picks another, a converted first. out=: an array of the result's shape and any\n"
      "dtype; without dtype= the sums run in np.result_type(out, a), as numpy's, and the result is cast\n"
      "into out (unsafe casting, as numpy) and out returned. Float sums are\n"
      "added in another order than numpy's, so their last bits may differ (bitwise the same on every run).\n"
      "    gpuscan.cumsum(np.array([True, False, True]))    # array([1, 1, 2]), int64\n"
      "    gpuscan.cumsum(np.ones((2, 3), np.int32), axis=1)  # array([[1, 2, 3], [1, 2, 3]]), int64";
  static const char* cumprod_doc =
      "numpy.cumprod(a, axis, dtype, out) on the GPU: cumsum()'s arguments and rules, with products\n"
      "(integer products wrap in their dtype, as numpy's).\n"
      "    gpuscan.cumprod(np.array([1, 2, 3, 4], np.uint8))   # array([ 1,  2,  6, 24], dtype=uint64)";

  static const char* segmented_doc =
      "Segmented scan: the scan restarts wherever a segment starts. Exactly one of flags= (a bool or\n"
      "integer mask of len(a), a segment starting where it is non-zero) or keys= (32- or 64-bit integers\n"
      "of len(a), a segment starting where the key changes); element 0 always starts one. Exclusive by\n"
      "default (the first element of every segment gets the op's identity), inclusive=True for inclusive.\n"
      "dtypes and ops as exclusive_scan(); floats bitwise the same on every run.\n"
      "    a = np.array([3, 1, 7, 0, 4, 1, 6, 3], dtype=np.uint32)\n"
      "    gpuscan.segmented_scan(a, flags=[1, 0, 0, 1, 0, 1, 0, 0])   # array([0, 3, 4, 0, 0, 0, 1, 7], dtype=uint32)\n"
      "    gpuscan.segmented_scan(a, keys=np.array([9, 9, 9, 4, 4, 9, 9, 9]), inclusive=True)\n"
      "    # array([ 3,  4, 11,  0,  4,  1,  7, 10], dtype=uint32)";

  static const char* segmented_reduce_doc =
      "Segmented reduction by offsets (CSR): S + 1 non-decreasing integer offsets give S segments\n"
      "a[offsets[s]:offsets[s+1]]; returns an array of S results of a's dtype, the op's identity for an\n"
      "empty segment (unlike numpy's reduceat). Values outside [offsets[0], offsets[-1]) are ignored.\n"
      "dtypes and ops as reduce(); floats bitwise the same on every run. ValueError for no\n"
      "offsets, decreasing ones or ones outside [0, len(a)].\n"
      "    a = np.array([3, 1, 7, 0, 4, 1, 6, 3], dtype=np.uint32)\n"
      "    gpuscan.segmented_reduce(a, [0, 3, 3, 5, 8])             # array([11,  0,  4, 10], dtype=uint32)\n"
      "    gpuscan.segmented_reduce(a, [0, 3, 3, 5, 8], op='max')   # array([7, 0, 4, 6], dtype=uint32)";

  py::class_<ContextObject> context_class(m, "Context", R"(A gpuscan context: one Vulkan device and gpuscan's pipelines for it.

Context(device=None, validation=False)
  device      None: GPUSCAN_DEVICE if set, else the first discrete GPU, integrated, virtual, CPU;
              an int: an index into devices(); a str: a case-insensitive substring of the device name.
  validation  load VK_LAYER_KHRONOS_validation with synchronization validation; its warnings and errors
              are collected for take_validation_messages().
Raises gpuscan.Error ("no_device", "unsupported" when the layer is missing, ...). Thread-safe: threads may
share one Context. close() (or leaving a `with` block) destroys it; so does garbage collection.)");
  context_class
      .def(py::init([](const py::object& device, bool validation) {
             std::string selector = selector_from(device);
             py::gil_scoped_release release;
             return ContextObject(create_state(std::move(selector), validation));
           }),
           py::arg("device") = py::none(), py::arg("validation") = false)
      .def("exclusive_scan", &ContextObject::exclusive_scan, py::arg("a"), py::arg("op") = "add",
           py::arg("algorithm") = "auto", py::kw_only(), py::arg("deterministic") = true,
           "out[i] = a[0] op ... op a[i-1]; out[0] = the op's identity (0 for add). `a`: 1-D uint32, int32,\n"
           "float32, uint64, int64 or float64 (made contiguous if not); the result is a new array of the same\n"
           "dtype and length; bool and 8- and 16-bit integers are converted as numpy's accumulate converts\n"
           "them (to int64 or uint64 for add and mul; kept for the other ops). op: 'add', 'min', 'max', 'mul',\n"
           "and 'and', 'or', 'xor' on integers (integer add and mul wrap). algorithm: one of gpuscan.algorithms.\n"
           "Float results are bitwise the same on every run; deterministic=False lets float single-pass scans\n"
           "take the unordered look-back (faster on GPUs, last bits may vary run to run; no effect on integers).")
      .def("inclusive_scan", &ContextObject::inclusive_scan, py::arg("a"), py::arg("op") = "add",
           py::arg("algorithm") = "auto", py::kw_only(), py::arg("deterministic") = true,
           "out[i] = a[0] op ... op a[i]: numpy.cumsum(a, dtype=a.dtype) for op='add',\n"
           "numpy.minimum.accumulate(a) for 'min', numpy.bitwise_xor.accumulate(a) for 'xor', ...")
      .def("reduce", &ContextObject::reduce, py::arg("a"), py::arg("op") = "add",
           "a[0] op a[1] op ... as a numpy scalar of a's dtype; the op's identity for an empty array.\n"
           "Same dtypes and ops as the scans; float results are bitwise the same on every run.")
      .def("histogram", &ContextObject::histogram, py::arg("a"), py::arg("bins") = 10, py::arg("range") = py::none(),
           py::arg("density") = py::none(), py::arg("weights") = py::none(), histogram_doc)
      .def("custom_scan", &ContextObject::custom_scan, py::arg("a"), py::arg("glsl"), py::arg("inclusive") = false,
           custom_scan_doc)
      .def("sort", &ContextObject::sort, py::arg("a"), py::kw_only(), py::arg("descending") = false,
           py::arg("algorithm") = "auto", sort_doc)
      .def("argsort", &ContextObject::argsort, py::arg("a"), py::kw_only(), py::arg("descending") = false,
           py::arg("algorithm") = "auto", argsort_doc)
      .def("sort_pairs", &ContextObject::sort_pairs, py::arg("keys"), py::arg("values"), py::kw_only(),
           py::arg("descending") = false, py::arg("algorithm") = "auto", sort_pairs_doc)
      .def("compact", &ContextObject::compact, py::arg("a"), py::arg("pred"), py::arg("path") = "auto",
           py::arg("algorithm") = "auto", compact_doc)
      .def("partition", &ContextObject::partition, py::arg("a"), py::arg("pred"), py::arg("path") = "auto",
           py::arg("algorithm") = "auto", partition_doc)
      .def("unique", &ContextObject::unique, py::arg("a"), py::arg("return_counts") = false,
           py::arg("algorithm") = "auto", py::kw_only(), py::arg("sort") = false, py::arg("equal_nan") = true,
           py::arg("return_index") = false, py::arg("return_inverse") = false, unique_doc)
      .def("unique_by_key", &ContextObject::unique_by_key, py::arg("keys"), py::arg("values"),
           py::arg("algorithm") = "auto", unique_by_key_doc)
      .def("segmented_scan", &ContextObject::segmented_scan, py::arg("a"), py::arg("flags") = py::none(),
           py::arg("keys") = py::none(), py::arg("op") = "add", py::arg("inclusive") = false, segmented_doc)
      .def("segmented_reduce", &ContextObject::segmented_reduce, py::arg("a"), py::arg("offsets"),
           py::arg("op") = "add", segmented_reduce_doc)
      .def("cumsum", &ContextObject::cumsum, py::arg("a"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(),
           py::arg("out") = py::none(), cumsum_doc)
      .def("cumprod", &ContextObject::cumprod, py::arg("a"), py::arg("axis") = py::none(),
           py::arg("dtype") = py::none(), py::arg("out") = py::none(), cumprod_doc)
      .def("asarray", &ContextObject::asarray, py::arg("a"),
           "`a` uploaded to this Context's GPU as a gpuscan.DeviceArray (gpuscan.asarray(a, context=ctx)).")
      .def("resolve_algorithm", &ContextObject::resolve_algorithm, py::arg("count"), py::arg("algorithm") = "auto",
           "The algorithm a scan of `count` elements runs with ('single-pass', 'reduce-then-scan' or "
           "'multipass'); gpuscan.Error 'unsupported' if the requested one cannot run on this device.")
      .def("take_validation_messages", &ContextObject::take_validation_messages,
           "The validation layer's warnings and errors since the last call, as 'warning: ...' / 'error: ...' "
           "strings, and forgets them. Always [] without validation. Still works after close(), for "
           "messages raised at shutdown.")
      .def("close", &ContextObject::close,
           "Destroys the Context (after scans still running on other threads end). Idempotent. Closing "
           "default_context() makes the next module-level call create a new one.")
      .def_property_readonly("closed", &ContextObject::closed)
      .def_property_readonly("validation", &ContextObject::validation)
      .def_property_readonly("device", [](const ContextObject& self) { return device_dict(self.state()->ctx.device_info()); },
                             "The device as a dict, like an entry of gpuscan.devices().")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](ContextObject& self, py::args) { self.close(); })
      .def("__repr__", [](py::object self) {
        const auto& c = self.cast<const ContextObject&>();
        if (c.closed()) return std::string("<gpuscan.Context closed>");
        return "<gpuscan.Context device=" + std::string(py::repr(to_str(c.state()->ctx.device_info().name))) +
               " validation=" + (c.validation() ? "True" : "False") + (c.is_default() ? " (default)" : "") + ">";
      });

  py::class_<DeviceArray>(m, "DeviceArray", R"(A 1-D array in the GPU's memory (gpuscan.asarray makes one).

Attributes as numpy's and CuPy's: shape, dtype, size, nbytes, itemsize, ndim (1); len(d). d.get() and
numpy.asarray(d) copy it to a new numpy array. d[i] reads one element back as a numpy scalar; d[a:b]
(step 1) is a view of the same memory, no copy. Every gpuscan function takes a DeviceArray and returns
new ones; the memory is freed when the last array (or view) of it is collected. Once its Context is
closed, using it raises ValueError.)")
      .def_property_readonly("shape", [](const DeviceArray& a) { return py::make_tuple(a.size()); })
      .def_property_readonly("dtype", [](const DeviceArray& a) { return a.dtype(); })
      .def_property_readonly("size", &DeviceArray::size)
      .def_property_readonly("nbytes", &DeviceArray::nbytes)
      .def_property_readonly("itemsize", &DeviceArray::itemsize)
      .def_property_readonly("ndim", [](const DeviceArray&) { return 1; })
      .def("__len__", &DeviceArray::size)
      .def("get", [](const DeviceArray& a) { return download(a, "get"); }, "The array as a new numpy array.")
      .def(
          "__array__",
          [](const DeviceArray& a, const py::object& dtype, const py::object&) {
            const py::array host = download(a, "__array__");
            return dtype.is_none() ? py::object(host) : host.attr("astype")(dtype);
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__getitem__",
           [](const DeviceArray& a, const py::object& key) -> py::object {
             a.state("__getitem__");
             const auto n = static_cast<py::ssize_t>(a.size());
             if (py::isinstance<py::slice>(key)) {
               py::ssize_t start = 0, stop = 0, step = 0, length = 0;
               if (!key.cast<py::slice>().compute(n, &start, &stop, &step, &length)) throw py::error_already_set();
               if (step != 1 && length > 1)
                 not_on_device("device arrays are sliced with step 1 (a view); take a.get()[start:stop:step]");
               return py::cast(a.slice(length > 0 ? static_cast<uint64_t>(start) : 0, static_cast<uint64_t>(length)));
             }
             if (!PyIndex_Check(key.ptr()))
               throw py::type_error("device arrays are indexed by an integer or a slice a:b");
             py::ssize_t i = py::module_::import("operator").attr("index")(key).cast<py::ssize_t>();
             if (i < -n || i >= n)
               throw py::index_error("index " + std::to_string(i) + " is out of bounds for a device array of size " +
                                     std::to_string(n));
             if (i < 0) i += n;
             return download(a.slice(static_cast<uint64_t>(i), 1), "__getitem__").attr("__getitem__")(0);
           })
      .def("__repr__", [](const DeviceArray& a) {
        return "<gpuscan.DeviceArray shape=(" + std::to_string(a.size()) + ",) dtype=" + dtype_name(a.dtype()) +
               (a.storage()->state->closed ? " (Context closed)" : "") + ">";
      });

  m.def(
      "asarray",
      [](const py::object& a, const py::object& context) -> py::object {
        if (!context.is_none()) {
          if (!py::isinstance<ContextObject>(context))
            throw py::type_error("asarray(): context must be a gpuscan.Context or None, not " +
                                 std::string(py::str(py::type::handle_of(context).attr("__name__"))));
          return context.cast<const ContextObject&>().asarray(a);
        }
        if (as_device(a)) return a;
        return default_context().cast<const ContextObject&>().asarray(a);
      },
      py::arg("a"), py::arg("context") = py::none(),
      "`a` (a 1-D numpy array or array-like of uint32, int32, float32, uint64, int64 or float64) uploaded to\n"
      "the GPU of `context` (default_context() if None) as a gpuscan.DeviceArray; a DeviceArray as it is\n"
      "(ValueError if it lives on another Context). TypeError for other dtypes: convert first.");
  m.def("default_context", &default_context,
        "The Context the module-level functions use, created on first use (thread-safe) with "
        "GPUSCAN_DEVICE's device (or the best one) and validation if GPUSCAN_VALIDATE=1.");
  m.def(
      "exclusive_scan",
      [](const py::object& a, const std::string& op, const std::string& algorithm, bool deterministic) {
        return context_for({a}, "exclusive_scan").exclusive_scan(a, op, algorithm, deterministic);
      },
      py::arg("a"), py::arg("op") = "add", py::arg("algorithm") = "auto", py::kw_only(),
      py::arg("deterministic") = true,
      "Exclusive scan on default_context(): out[i] = a[0] op ... op a[i-1], out[0] = the identity.\n"
      "`a`: 1-D numpy array of uint32, int32, float32, uint64, int64 or float64, any length; integer add and\n"
      "mul wrap. op: 'add', 'min', 'max', 'mul', 'and', 'or', 'xor' (the last three on integers).\n"
      "algorithm: 'auto', 'single-pass', 'reduce-then-scan', 'multipass' or 'blelloch'. Float results are\n"
      "bitwise the same on every run unless deterministic=False (Context.exclusive_scan).");
  m.def(
      "inclusive_scan",
      [](const py::object& a, const std::string& op, const std::string& algorithm, bool deterministic) {
        return context_for({a}, "inclusive_scan").inclusive_scan(a, op, algorithm, deterministic);
      },
      py::arg("a"), py::arg("op") = "add", py::arg("algorithm") = "auto", py::kw_only(),
      py::arg("deterministic") = true,
      "Inclusive scan on default_context(): out[i] = a[0] op ... op a[i]; for op='add' as\n"
      "numpy.cumsum(a, dtype=a.dtype), and as numpy.cumsum(a) for bool and 8- and 16-bit integers (int64 or\n"
      "uint64); gpuscan.cumsum follows numpy.cumsum for every dtype.");
  m.def(
      "reduce",
      [](const py::object& a, const std::string& op) {
        return context_for({a}, "reduce").reduce(a, op);
      },
      py::arg("a"), py::arg("op") = "add",
      "Reduction on default_context(): a[0] op a[1] op ..., a numpy scalar of a's dtype\n"
      "(gpuscan.reduce(np.array([3, 1, 7], np.uint32), op='max') == 7). op as for the scans.");
  m.def(
      "histogram",
      [](const py::object& a, const py::object& bins, const py::object& range, const py::object& density,
         const py::object& weights) {
        return context_for({a}, "histogram").histogram(a, bins, range, density, weights);
      },
      py::arg("a"), py::arg("bins") = 10, py::arg("range") = py::none(), py::arg("density") = py::none(),
      py::arg("weights") = py::none(), histogram_doc);
  m.def(
      "sort",
      [](const py::object& a, bool descending, const std::string& algorithm) {
        return context_for({a}, "sort").sort(a, descending, algorithm);
      },
      py::arg("a"), py::kw_only(), py::arg("descending") = false, py::arg("algorithm") = "auto", sort_doc);
  m.def(
      "argsort",
      [](const py::object& a, bool descending, const std::string& algorithm) {
        return context_for({a}, "argsort").argsort(a, descending, algorithm);
      },
      py::arg("a"), py::kw_only(), py::arg("descending") = false, py::arg("algorithm") = "auto", argsort_doc);
  m.def(
      "sort_pairs",
      [](const py::object& keys, const py::object& values, bool descending, const std::string& algorithm) {
        return context_for({keys, values}, "sort_pairs").sort_pairs(keys, values, descending, algorithm);
      },
      py::arg("keys"), py::arg("values"), py::kw_only(), py::arg("descending") = false, py::arg("algorithm") = "auto",
      sort_pairs_doc);
  m.def(
      "custom_scan",
      [](const py::object& a, const std::string& glsl, bool inclusive) {
        return context_for({a}, "custom_scan").custom_scan(a, glsl, inclusive);
      },
      py::arg("a"), py::arg("glsl"), py::arg("inclusive") = false, custom_scan_doc);
  m.def(
      "compact",
      [](const py::object& a, const py::object& pred, const std::string& path, const std::string& algorithm) {
        return context_for({a, pred}, "compact").compact(a, pred, path, algorithm);
      },
      py::arg("a"), py::arg("pred"), py::arg("path") = "auto", py::arg("algorithm") = "auto", compact_doc);
  m.def(
      "partition",
      [](const py::object& a, const py::object& pred, const std::string& path, const std::string& algorithm) {
        return context_for({a, pred}, "partition").partition(a, pred, path, algorithm);
      },
      py::arg("a"), py::arg("pred"), py::arg("path") = "auto", py::arg("algorithm") = "auto", partition_doc);
  m.def(
      "unique",
      [](const py::object& a, bool return_counts, const std::string& algorithm, bool sort, bool equal_nan,
         bool return_index, bool return_inverse) {
        return context_for({a}, "unique").unique(a, return_counts, algorithm, sort, equal_nan,
                                                                     return_index, return_inverse);
      },
      py::arg("a"), py::arg("return_counts") = false, py::arg("algorithm") = "auto", py::kw_only(),
      py::arg("sort") = false, py::arg("equal_nan") = true, py::arg("return_index") = false,
      py::arg("return_inverse") = false, unique_doc);
  // Primitives registered from their signatures (gpuscan/signature.hpp): one line each.
  def_primitive<gpuscan::primitive::RunLength>(m, context_class, "run_length_encode", run_length_encode_doc);
  def_primitive<gpuscan::primitive::RunLength>(m, context_class, "non_trivial_runs", non_trivial_runs_doc,
                                               {"non-trivial"});
  m.def(
      "unique_by_key",
      [](const py::object& keys, const py::object& values, const std::string& algorithm) {
        return context_for({keys, values}, "unique_by_key").unique_by_key(keys, values, algorithm);
      },
      py::arg("keys"), py::arg("values"), py::arg("algorithm") = "auto", unique_by_key_doc);
  m.def(
      "segmented_scan",
      [](const py::object& a, const py::object& flags, const py::object& keys, const std::string& op, bool inclusive) {
        return context_for({a, flags, keys}, "segmented_scan").segmented_scan(a, flags, keys, op, inclusive);
      },
      py::arg("a"), py::arg("flags") = py::none(), py::arg("keys") = py::none(), py::arg("op") = "add",
      py::arg("inclusive") = false, segmented_doc);
  m.def(
      "segmented_reduce",
      [](const py::object& a, const py::object& offsets, const std::string& op) {
        return context_for({a, offsets}, "segmented_reduce").segmented_reduce(a, offsets, op);
      },
      py::arg("a"), py::arg("offsets"), py::arg("op") = "add", segmented_reduce_doc);
  m.def(
      "cumsum",
      [](const py::object& a, const py::object& axis, const py::object& dtype, const py::object& out) {
        return context_for({a, out}, "cumsum").cumsum(a, axis, dtype, out);
      },
      py::arg("a"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
      cumsum_doc);
  m.def(
      "cumprod",
      [](const py::object& a, const py::object& axis, const py::object& dtype, const py::object& out) {
        return context_for({a, out}, "cumprod").cumprod(a, axis, dtype, out);
      },
      py::arg("a"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
      cumprod_doc);
  m.def(
      "devices",
      [] {
        std::vector<gpuscan::DeviceInfo> infos;
        {
          py::gil_scoped_release release;
          infos = gpuscan::Context::list_devices();
        }
        py::list out;
        for (const auto& d : infos) out.append(device_dict(d));
        return out;
      },
      "Every Vulkan device, as dicts: index, name, type, api_version, subgroup_size, subgroup_arithmetic, "
      "subgroup_ballot, push_descriptors, single_pass_capable, shader_int64, shader_float64, "
      "subgroup_extended_types, buffer_device_address, subgroup_uniform_control_flow, maximal_reconvergence, "
      "max_workgroup_invocations, max_workgroup_count, "
      "max_storage_buffer_range, min_storage_buffer_offset_alignment, max_shared_memory_bytes, "
      "timestamp_period_ns, shader_cores (SMs, CUs or cores where the driver says; 0 where not), "
      "largest_memory_heap_bytes. gpuscan.Error 'no_device' without a Vulkan loader or driver.");

  // Destroy the default Context while the interpreter still runs, not in a static destructor at exit.
  py::module_::import("atexit").attr("register")(py::cpp_function(&close_default_at_exit));
}
