#include "program_interpreter.hpp"

#include <algorithm>
#include <cstring>
#include <variant>

namespace gpuscan::test {

struct ProgramInterpreter::View {
  size_t buffer;
  uint64_t start;  // bytes
  uint64_t bytes;
  uint32_t unit;
  std::string name;  // for messages
};

ProgramInterpreter::ProgramInterpreter(std::vector<Buffer> buffers, uint64_t block_size, uint64_t alignment)
    : buffers_(std::move(buffers)), block_(block_size), alignment_(alignment) {
  for (const Buffer& b : buffers_) {
    written_.emplace_back(b.bytes.size(), b.read_only ? 1 : 0);
    write_epoch_.emplace_back(b.bytes.size(), 0);
    write_by_.emplace_back(b.bytes.size(), 0);
    read_epoch_.emplace_back(b.bytes.size(), 0);
    read_by_.emplace_back(b.bytes.size(), 0);
  }
}

bool ProgramInterpreter::written(size_t buffer, uint64_t offset, uint64_t count) const {
  const std::vector<char>& w = written_.at(buffer);
  return offset + count <= w.size() && std::all_of(w.begin() + offset, w.begin() + offset + count, [](char c) { return c; });
}

uint64_t ProgramInterpreter::identity(uint32_t unit) const {
  return op_ == Operator::add ? 0 : uint64_t{1} << (4 * unit);  // affine: m = 1, c = 0
}

uint64_t ProgramInterpreter::combine(uint64_t a, uint64_t b, uint32_t unit) const {
  if (op_ == Operator::add) return a + b;
  // x -> m·x + c in the two halves of a unit (m high, c low), composed left first: (a ⊕ b)(x) = b(a(x)).
  const uint32_t half = 4 * unit;
  const uint64_t mask = half >= 64 ? ~uint64_t{0} : (uint64_t{1} << half) - 1;
  const uint64_t am = (a >> half) & mask, ac = a & mask, bm = (b >> half) & mask, bc = b & mask;
  return ((am * bm) & mask) << half | ((ac * bm + bc) & mask);
}

void ProgramInterpreter::fail(const std::string& what) {
  if (errors_++ == 0) first_error_ = what;
}

void ProgramInterpreter::run(const core::Program& program) {
  // Between two barriers, in reverse: the GPU may run them in any order.
  size_t begin = 0;
  const auto& c = program.commands;
  for (size_t i = 0; i <= c.size(); ++i) {
    if (i < c.size() && !std::holds_alternative<core::cmd::Barrier>(c[i])) continue;
    for (size_t j = i; j-- > begin;) {
      current_ = static_cast<uint32_t>(j + 1);
      if (const auto* d = std::get_if<core::cmd::Dispatch>(&c[j])) {
        dispatch(*d, j);
      } else if (const auto* f = std::get_if<core::cmd::Fill>(&c[j])) {
        const View v{f->buffer, f->offset, f->bytes, 4, "fill"};
        for (uint64_t w = 0; w < f->bytes / 4; ++w) write(v, w, f->value);
      } else if (const auto* u = std::get_if<core::cmd::Update>(&c[j])) {
        const View v{u->buffer, u->offset, 4 * u->words.size(), 4, "update"};
        for (uint64_t w = 0; w < u->words.size(); ++w) write(v, w, u->words[w]);
      }
      if (errors_ > 0) return;
    }
    ++epoch_;
    begin = i + 1;
  }
}

uint64_t ProgramInterpreter::read(const View& v, uint64_t element) {
  if (v.buffer >= buffers_.size()) return fail(v.name + ": no such buffer"), 0;
  const uint64_t at = v.start + element * v.unit;
  if ((element + 1) * v.unit > v.bytes || at + v.unit > buffers_[v.buffer].bytes.size())
    return fail(v.name + ": read of element " + std::to_string(element) + " outside the bound range"), 0;
  uint64_t value = 0;
  for (uint32_t b = 0; b < v.unit; ++b) {
    const uint64_t i = at + b;
    if (!written_[v.buffer][i])
      return fail(v.name + ": read of unwritten byte " + std::to_string(i) + " of buffer " + std::to_string(v.buffer)), 0;
    if (write_epoch_[v.buffer][i] == epoch_ && write_by_[v.buffer][i] != current_)
      return fail(v.name + ": byte " + std::to_string(i) + " of buffer " + std::to_string(v.buffer) +
                  " read by command " + std::to_string(current_ - 1) + " and written by command " +
                  std::to_string(write_by_[v.buffer][i] - 1) + " with no barrier between"),
             0;
    read_epoch_[v.buffer][i] = epoch_;
    read_by_[v.buffer][i] = current_;
    value |= uint64_t{static_cast<uint8_t>(buffers_[v.buffer].bytes[i])} << (8 * b);
  }
  return value;
}

void ProgramInterpreter::write(const View& v, uint64_t element, uint64_t value) {
  if (v.buffer >= buffers_.size()) return fail(v.name + ": no such buffer");
  if (buffers_[v.buffer].read_only) return fail(v.name + ": a write to read-only buffer " + std::to_string(v.buffer));
  const uint64_t at = v.start + element * v.unit;
  if ((element + 1) * v.unit > v.bytes || at + v.unit > buffers_[v.buffer].bytes.size())
    return fail(v.name + ": write of element " + std::to_string(element) + " outside the bound range");
  for (uint32_t b = 0; b < v.unit; ++b) {
    const uint64_t i = at + b;
    const bool raced = (write_epoch_[v.buffer][i] == epoch_ && write_by_[v.buffer][i] != current_) ||
                       (read_epoch_[v.buffer][i] == epoch_ && read_by_[v.buffer][i] != current_);
    if (raced)
      return fail(v.name + ": byte " + std::to_string(i) + " of buffer " + std::to_string(v.buffer) +
                  " written by command " + std::to_string(current_ - 1) +
                  " and touched by another with no barrier between");
    buffers_[v.buffer].bytes[i] = static_cast<std::byte>(value >> (8 * b));
    written_[v.buffer][i] = 1;
    write_epoch_[v.buffer][i] = epoch_;
    write_by_[v.buffer][i] = current_;
  }
}

void ProgramInterpreter::dispatch(const core::cmd::Dispatch& d, size_t index) {
  // Bind each range from an `alignment_`-byte boundary at or before it, as a backend with that offset
  // alignment would; the kernel adds the remainder back through its offset words.
  std::vector<View> views;
  std::vector<uint32_t> offsets;
  for (size_t k = 0; k < d.bindings.size(); ++k) {
    const core::Bind& b = d.bindings[k];
    const uint64_t first = b.first * b.unit;
    const uint64_t start = first - first % std::max<uint64_t>(alignment_ / b.unit * b.unit, b.unit);
    views.push_back({b.buffer, start, first + std::max<uint64_t>(b.count, 1) * b.unit - start, b.unit,
                     d.key.variant + " (command " + std::to_string(index) + ") binding " + std::to_string(k)});
    offsets.push_back(static_cast<uint32_t>((first - start) / b.unit));
  }
  std::vector<uint32_t> p;
  try {
    p = core::resolve_dispatch(d, offsets, nullptr).params;
  } catch (const std::exception& e) {
    return fail(d.key.variant + ": " + e.what());
  }
  p.resize(std::max<size_t>(p.size(), 10), 0);
  const std::string kernel = d.key.variant.substr(0, d.key.variant.find('.'));
  uint64_t block = block_;
  for (const auto& [prefix, size] : blocks_)
    if (kernel.rfind(prefix, 0) == 0) block = size;
  if (kernel.rfind("compact_", 0) == 0) return compaction(kernel, views, p, block);
  if (kernel == "seg_reduce_tiles" || kernel == "seg_scan_tiles") return segmented(d, kernel, views, p, block);
  const uint64_t n = p[0], blocks = p[5];
  const bool inclusive = d.key.inclusive, use_aux = d.key.use_aux;
  if (views.size() < 3) return fail(d.key.variant + ": fewer than three bindings");
  const View &src = views[0], &dst = views[1], &aux = views[2];
  // The root's carry-in: from words 7..8, or from binding 3 at word 7.
  auto carry_in = [&]() -> uint64_t {
    if (p[6] == 1) return p[7] | uint64_t{p[8]} << 32;
    if (p[6] == 2) return views.size() > 3 ? read(views[3], p[7]) : (fail("no binding 3 to carry from"), 0);
    return identity(views[0].unit);
  };
  const uint32_t unit = src.unit;
  // Scans block b of src into dst from `running`; returns the end value.
  auto scan_block = [&](uint64_t b, uint64_t running) {
    for (uint64_t i = b * block, end = std::min(n, (b + 1) * block); i < end; ++i) {
      const uint64_t v = read(src, p[1] + i);  // before the write: src may be dst (in place)
      if (inclusive) running = combine(running, v, unit);
      write(dst, p[2] + i, running);
      if (!inclusive) running = combine(running, v, unit);
    }
    return running;
  };
  if (kernel == "single_pass") return single_pass(d, views, p);
  if (kernel == "carry_save") return write(aux, p[3] + 1, read(src, p[1]));
  if (kernel == "carry_update")
    return write(aux, p[3], inclusive ? read(src, p[1]) : combine(read(src, p[1]), read(aux, p[3] + 1), unit));
  for (uint64_t b = blocks; b-- > 0;) {  // workgroups in reverse: any order must work
    const uint64_t begin = b * block, end = std::min(n, begin + block);
    if (kernel == "scan_local") {
      const uint64_t total = scan_block(b, b == 0 ? carry_in() : identity(unit));
      if (use_aux) write(aux, p[3] + b, total);
    } else if (kernel == "uniform_add") {
      const uint64_t offset = read(aux, p[3] + b);
      for (uint64_t i = begin; i < end; ++i) write(dst, p[2] + i, combine(offset, read(dst, p[2] + i), unit));
    } else if (kernel == "reduce_tiles") {
      uint64_t total = identity(unit);
      for (uint64_t i = begin; i < end; ++i) total = combine(total, read(src, p[1] + i), unit);
      write(aux, p[3] + b, total);
    } else if (kernel == "scan_tiles") {
      scan_block(b, use_aux ? read(aux, p[3] + b) : b == 0 ? carry_in() : identity(unit));
    } else {
      return fail("no CPU model of kernel " + d.key.variant);
    }
    if (errors_ > 0) return;
  }
}

// The chained scan over its state (shaders/common/lookback.glsl), in elements of the state binding's
// unit: bytes [0, 4) the tile counter, [4, 8) the fallback counter, then per tile `words` 64-bit words,
// then as many for the ordered look-back's block prefixes, all zero before and after. Tiles run in the
// order the counter hands them out; each reads its predecessor's inclusive prefix, scans from it and
// publishes its own.
void ProgramInterpreter::single_pass(const core::cmd::Dispatch& d, const std::vector<View>& views,
                                     const std::vector<uint32_t>& p) {
  const View &src = views[0], &dst = views[1], &state = views[2];
  const uint64_t unit = state.unit, n = p[0], tiles = p[5];
  if (8 % unit != 0) return fail("single_pass: a state unit not dividing 8");
  if (p[3] != 0) return fail("single_pass: the state not bound from its first element");
  const uint64_t words = std::max<uint64_t>(1, (unit + 3) / 4);
  const uint64_t per_word = 8 * words / unit;
  auto first_element = [&](uint64_t tile) { return (8 + 8 * words * tile) / unit; };
  const uint64_t initial = p[6] == 1   ? (p[7] | uint64_t{p[8]} << 32)
                           : p[6] == 2 ? read(views[3], p[7])
                                       : identity(src.unit);
  uint64_t carried = initial;
  for (uint64_t k = 0; k < tiles; ++k) {
    const uint64_t tile = read(state, 0);  // atomicAdd on the zeroed counter
    write(state, 0, tile + 1);
    if (tile != k) return fail("single_pass: the tile counter handed out " + std::to_string(tile));
    for (uint64_t e = 0; e < per_word; ++e)
      if (read(state, first_element(tile) + e) != 0) return fail("single_pass: a tile state not zero before use");
    const uint64_t prefix = tile == 0 ? initial : read(state, first_element(tile - 1));
    uint64_t running = prefix;
    for (uint64_t i = tile * block_, end = std::min(n, (tile + 1) * block_); i < end; ++i) {
      const uint64_t v = read(src, p[1] + i);
      if (d.key.inclusive) running = combine(running, v, src.unit);
      write(dst, p[2] + i, running);
      if (!d.key.inclusive) running = combine(running, v, src.unit);
    }
    carried = running;
    for (uint64_t e = 0; e < per_word; ++e) write(state, first_element(tile) + e, carried);
    if (errors_ > 0) return;
  }
  clear_state(state, 2 * tiles);
}

// The last workgroup zeroes the look-back state (lookback_finish): the counters and `slots` tile slots
// (the scan's tile states and block prefixes; the compaction's tile states alone).
void ProgramInterpreter::clear_state(const View& state, uint64_t slots) {
  const uint64_t words = std::max<uint64_t>(1, (state.unit + 3) / 4);
  for (uint64_t i = 0; i < (8 + 8 * words * slots) / state.unit; ++i) write(state, i, 0);
}

// Segmented scans (shaders/common/segmented.glsl): bindings 0 values, 1 output (seg_reduce_tiles: the
// tile heads, u32), 2 tile totals, 3 the carry binding, 4 heads; words PassParams, 10 the heads' offset
// (the key before the range included where word 11, heads_before, is 1). HEADS (key.heads) says how
// element i starts a segment: 0 a non-zero u32 flag, 1 and 2 a key unlike the one before (element 0 of a
// range without the key before always starts one).
void ProgramInterpreter::segmented(const core::cmd::Dispatch& d, const std::string& kernel,
                                   const std::vector<View>& views, const std::vector<uint32_t>& p, uint64_t block) {
  if (views.size() < 5) return fail(kernel + ": fewer than five bindings");
  const View &values = views[0], &out = views[1], &totals = views[2], &heads = views[4];
  const uint64_t n = p[0], tiles = p[5];
  const uint32_t unit = values.unit;
  const bool before = p[11] != 0;
  auto head_at = [&](uint64_t i) {
    if (d.key.heads == 0) return read(heads, p[10] + i) != 0;
    if (i == 0 && !before) return true;
    return read(heads, p[10] + i) != read(heads, p[10] + i - 1);
  };
  for (uint64_t t = tiles; t-- > 0;) {  // workgroups in reverse
    const uint64_t first = t * block, last = std::min(n, first + block);
    if (kernel == "seg_reduce_tiles") {
      uint64_t total = identity(unit);
      bool head = false;
      for (uint64_t i = first; i < last; ++i) {
        const bool h = head_at(i);
        const uint64_t v = read(values, p[1] + i);
        total = h ? v : combine(total, v, unit);
        head = head || h;
      }
      write(totals, p[3] + t, total);
      write(out, p[2] + t, head ? 1 : 0);
      continue;
    }
    uint64_t running = identity(unit);
    if (d.key.use_aux && t > 0) running = read(totals, p[3] + t - 1);
    if (p[6] == 2 && t == 0) running = read(views[3], p[7]);
    // The whole tile read before it is written: an in-place scan's workgroup does.
    std::vector<std::pair<bool, uint64_t>> tile;
    for (uint64_t i = first; i < last; ++i) tile.emplace_back(head_at(i), read(values, p[1] + i));
    for (uint64_t i = first; i < last; ++i) {
      const auto [h, v] = tile[i - first];
      if (d.key.inclusive) {
        running = h ? v : combine(running, v, unit);
        write(out, p[2] + i, running);
      } else {
        write(out, p[2] + i, h ? identity(unit) : running);
        running = h ? v : combine(running, v, unit);
      }
    }
    if (errors_ > 0) return;
  }
}

// Compaction by u32 flags (binding 3, non-zero keeps), CompactParams' words: 0..5 as PassParams, 6 and 7
// the offsets of the flags and the count (binding 4), 11..14 an output window (first tile, all tiles,
// the window's first output element and its length; all tiles 0 without one). The kept elements keep
// their order; a partition writes the rejected ones after all kept ones, in order. The last tile writes
// the number kept.
void ProgramInterpreter::compaction(const std::string& kernel, const std::vector<View>& views,
                                    const std::vector<uint32_t>& p, uint64_t block) {
  if (views.size() < 5) return fail(kernel + ": fewer than five bindings");
  const View &src = views[0], &dst = views[1], &aux = views[2], &flags = views[3], &count = views[4];
  const uint64_t n = p[0], tiles = p[5];
  const bool windowed = p[12] != 0;
  const uint64_t first_tile = windowed ? p[11] : 0, all_tiles = windowed ? p[12] : tiles;
  const uint64_t out_first = windowed ? p[13] : 0, out_count = windowed ? p[14] : UINT64_MAX;
  auto kept = [&](uint64_t i) { return read(flags, p[6] + i) != 0; };
  auto store = [&](uint64_t to, uint64_t v) {
    if (to >= out_first && to - out_first < out_count) write(dst, p[2] + (to - out_first), v);
  };
  if (n == 0) return write(count, p[7], 0);  // an empty input writes its count alone
  if (kernel == "compact_single_pass") {  // tiles in order, as the look-back hands them on
    if (p[3] != 0) return fail("compact_single_pass: the state not bound from its first element");
    uint64_t at = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t v = read(src, p[1] + i);
      if (kept(i)) store(at++, v);
    }
    write(count, p[7], at);
    return clear_state(aux, tiles);  // single_pass_state_bytes: one slot per tile
  }
  const bool partition = kernel == "compact_partition";
  const uint64_t all_kept = partition ? read(aux, p[3] + all_tiles - 1) : 0;
  for (uint64_t t = tiles; t-- > 0;) {  // workgroups in reverse
    const uint64_t g = first_tile + t;
    uint64_t at = kernel == "compact_count" ? 0 : partition ? (g == 0 ? 0 : read(aux, p[3] + g - 1)) : read(aux, p[3] + g);
    for (uint64_t i = t * block, end = std::min(n, (t + 1) * block); i < end; ++i) {
      const uint64_t v = read(src, p[1] + i);
      const uint64_t whole = g * block + (i - t * block);
      if (kept(i)) {
        if (kernel != "compact_count") store(at, v);
        ++at;
      } else if (partition) {
        store(all_kept + (whole - at), v);
      }
    }
    if (kernel == "compact_count") write(aux, p[3] + t, at);
    else if (g + 1 == all_tiles) write(count, p[7], partition ? all_kept : at);
    if (errors_ > 0) return;
  }
}

}  // namespace gpuscan::test
