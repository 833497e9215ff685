// The executor of programs (core/program.hpp), written once over a backend's small interface. A backend
// (src/vulkan/execute.cpp, src/gl/execute.cpp) supplies:
//   using Bound = ...;                                  what a binding becomes
//   Bound bind(const Bind&);                            binds a range (throws past its binding limit)
//   uint32_t element_offset(const Bound&) const;        where the range's first element sits in it
//   std::function<uint64_t(const Bind&)> address();     device addresses, or an empty function
//   void build(const PipelineKey&);                     builds the pipeline (program) of a key
//   bool recording() const;                             false: build the pipelines only
//   void dispatch(const PipelineKey&, std::span<const Bound>, std::span<const uint32_t> params,
//                 const cmd::Dispatch&);                the grid, or d.indirect's command
//   void barrier(const BarrierScope&);
//   void fill(const cmd::Fill&);
//   void update(const cmd::Update&);
// Every binding, parameter word and pipeline is resolved before the first command, so an error (a range
// past the binding limit, a kernel that does not build) records or issues nothing.
#pragma once

#include <span>
#include <variant>
#include <vector>

#include "core/program.hpp"

namespace gpuscan::core {

template <class Backend>
void execute_program(const Program& program, Backend& backend) {
  struct Ready {
    ResolvedDispatch resolved;
    std::vector<typename Backend::Bound> bound;
  };
  std::vector<Ready> ready;
  const auto address = backend.address();
  for (const Command& c : program.commands) {
    const auto* d = std::get_if<cmd::Dispatch>(&c);
    if (!d) continue;
    Ready r;
    std::vector<uint32_t> offsets;
    for (const Bind& b : d->bindings) {
      r.bound.push_back(backend.bind(b));
      offsets.push_back(backend.element_offset(r.bound.back()));
    }
    r.resolved = resolve_dispatch(*d, offsets, address);
    backend.build(r.resolved.key);
    ready.push_back(std::move(r));
  }
  if (!backend.recording()) return;
  const std::vector<BarrierScope> scopes = barrier_scopes(program);
  size_t next = 0;
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const Command& c = program.commands[i];
    if (const auto* d = std::get_if<cmd::Dispatch>(&c)) {
      const Ready& r = ready[next++];
      backend.dispatch(r.resolved.key, std::span(r.bound), std::span(r.resolved.params), *d);
    } else if (std::holds_alternative<cmd::Barrier>(c)) {
      backend.barrier(scopes[i]);
    } else if (const auto* f = std::get_if<cmd::Fill>(&c)) {
      backend.fill(*f);
    } else {
      backend.update(std::get<cmd::Update>(c));
    }
  }
}

}  // namespace gpuscan::core
