#include "core/program.hpp"

#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

void check_words(uint64_t offset, uint64_t bytes, const char* what) {
  if (offset % 4 != 0 || bytes % 4 != 0)
    throw Error(Errc::invalid_argument, std::string("internal: a ") + what + " of whole 32-bit words only");
}

}  // namespace

void Program::barrier() {
  if (!commands.empty() && !std::holds_alternative<cmd::Barrier>(commands.back()))
    commands.emplace_back(cmd::Barrier{});
}

void Program::fill(uint8_t buffer, uint64_t offset, uint64_t bytes, uint32_t value) {
  check_words(offset, bytes, "fill");
  if (bytes > 0) commands.emplace_back(cmd::Fill{buffer, offset, bytes, value});
}

void Program::update(uint8_t buffer, uint64_t offset, std::vector<uint32_t> words) {
  check_words(offset, 0, "update");
  if (!words.empty()) commands.emplace_back(cmd::Update{buffer, offset, std::move(words)});
}

size_t Program::dispatch_count() const {
  size_t n = 0;
  for (const Command& c : commands) n += std::holds_alternative<cmd::Dispatch>(c);
  return n;
}

ResolvedDispatch resolve_dispatch(const cmd::Dispatch& d, std::span<const uint32_t> element_offsets,
                                  const std::function<uint64_t(const Bind&)>& address) {
  ResolvedDispatch r{d.key, {}};
  r.params.reserve(d.params.size());
  for (const Param& p : d.params) {
    switch (p.kind) {
      case Param::Kind::word: r.params.push_back(p.value); break;
      case Param::Kind::offset:
        if (p.binding >= element_offsets.size())
          throw Error(Errc::invalid_argument, "internal: a parameter names a binding the dispatch lacks");
        r.params.push_back(p.value + p.scale * element_offsets[p.binding]);
        break;
      case Param::Kind::address_low:
      case Param::Kind::address_high: {
        if (!address) throw Error(Errc::unsupported, "internal: device addresses on a backend without them");
        const uint64_t a = address(p.at);
        r.params.push_back(static_cast<uint32_t>(p.kind == Param::Kind::address_high ? a >> 32 : a));
        break;
      }
    }
  }
  if (!d.vector_aligned_if.empty()) {
    r.key.vector_aligned = true;
    for (const cmd::Dispatch::Aligned& a : d.vector_aligned_if)
      r.key.vector_aligned = r.key.vector_aligned && a.param < r.params.size() &&
                             uint64_t{r.params[a.param]} * a.scale % a.modulus == 0;
  }
  if (d.state_binding >= 0 && (static_cast<size_t>(d.state_binding) >= element_offsets.size() ||
                               element_offsets[d.state_binding] != 0))
    throw Error(Errc::misaligned, std::string("temp offset is not aligned for the ") + d.state_name + "'s state");
  return r;
}

void check_buffer_index(size_t buffers, uint8_t i) {
  if (i >= buffers) throw Error(Errc::invalid_argument, "internal: a program names a buffer it was not given");
}

void append_placed(Program& program, Program part, std::span<const Place> at) {
  auto place = [&](uint8_t& buffer, uint64_t& offset, uint32_t unit) {
    check_buffer_index(at.size(), buffer);
    const Place& p = at[buffer];
    if (p.offset % unit != 0)
      throw Error(Errc::invalid_argument, "internal: a part's buffer placed inside an element of the whole's");
    buffer = p.buffer;
    offset += p.offset / unit;
  };
  for (Command& c : part.commands) {
    if (std::holds_alternative<cmd::Barrier>(c)) {
      program.barrier();
      continue;
    }
    if (auto* d = std::get_if<cmd::Dispatch>(&c)) {
      for (Bind& b : d->bindings) place(b.buffer, b.first, b.unit);
      for (Param& p : d->params)
        if (p.kind == Param::Kind::address_low || p.kind == Param::Kind::address_high)
          place(p.at.buffer, p.at.first, p.at.unit);
      if (d->indirect) place(d->indirect->buffer, d->indirect->offset, 1);
    } else if (auto* f = std::get_if<cmd::Fill>(&c)) {
      place(f->buffer, f->offset, 1);
    } else {
      auto& u = std::get<cmd::Update>(c);
      place(u.buffer, u.offset, 1);
    }
    program.commands.push_back(std::move(c));
  }
}

std::vector<BarrierScope> barrier_scopes(const Program& program) {
  const auto& c = program.commands;
  std::vector<BarrierScope> scopes(c.size());
  // Readers: every kind of command after the barrier, gathered from the end in one pass (chained barriers
  // then need not be reasoned about).
  BarrierScope later;
  for (size_t j = c.size(); j-- > 0;) {
    scopes[j].before_dispatch = later.before_dispatch;
    scopes[j].before_indirect = later.before_indirect;
    scopes[j].before_transfer = later.before_transfer;
    if (const auto* d = std::get_if<cmd::Dispatch>(&c[j])) {
      later.before_dispatch = true;
      later.before_indirect |= d->indirect.has_value();
    } else if (!std::holds_alternative<cmd::Barrier>(c[j])) {
      later.before_transfer = true;
    }
  }
  // Writers: the kinds since the previous barrier.
  bool dispatched = false, transferred = false;
  for (size_t j = 0; j < c.size(); ++j) {
    if (const auto* b = std::get_if<cmd::Barrier>(&c[j])) {
      scopes[j].after_dispatch = dispatched || b->after_earlier;
      scopes[j].after_transfer = transferred;
      dispatched = transferred = false;
    } else if (std::holds_alternative<cmd::Dispatch>(c[j])) {
      dispatched = true;
    } else {
      transferred = true;
    }
  }
  return scopes;
}

BarrierScope barrier_scope(const Program& program, size_t i) { return barrier_scopes(program).at(i); }

}  // namespace gpuscan::core
