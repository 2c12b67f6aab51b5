// A TTGIR module as a kernel::LayoutProgram (spec/TRITON.md §3): every op that moves data, its
// tensors' encodings derived as linear layouts, its location, and the contiguity and divisibility
// facts the IR gives the global pointers (a small form of Triton's axis analysis, §3.4).
#pragma once
#include <optional>

#include "tfspec/frontends/triton/ttgir.hpp"
#include "tfspec/kernel/layout_program.hpp"

namespace tfspec::triton {

// metadata_shared: Triton's compiled.metadata.shared, when known (the fixture's NAME.json).
kernel::LayoutProgram lower(const Module& m, std::optional<int64_t> metadata_shared = std::nullopt);

// The global facts of every SSA value of a module (§3.4), by name.
struct ValueFacts {
  std::vector<bool> constant;  // per dim: the value does not change along it
  int contiguous_dim = -1;     // unit stride along this dim, for `contiguity` elements
  int64_t contiguity = 1;
  int64_t divisibility = 1;  // of the value at the start of each contiguous run (elements for pointers)
  // per dim: the value repeats in aligned runs of this many elements along it (Triton's constancy;
  // kWhole: the whole dim). A mask's constancy along the pointer's contiguous dim caps the vector.
  std::vector<int64_t> constancy;
  static constexpr int64_t kWhole = int64_t{1} << 30;
};
std::map<std::string, ValueFacts> global_facts(const Module& m);

}  // namespace tfspec::triton
