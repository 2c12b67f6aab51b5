// What `kernel check --draw` pictures (spec/KERNEL.md "Pictures"), as data: each stage's
// partition of its tile with the cells the checks named. The drawing is draw/'s (the CLI joins
// the two); this module stays below draw/.
#pragma once
#include <string>
#include <vector>

#include "tfspec/kernel/check.hpp"
#include "tfspec/kernel/partition.hpp"

namespace tfspec::kernel {

struct TileView {
  std::string file;   // "A-g2s.svg"
  std::string title;
  char operand = 'A';
  Partition part;
  bool exclusive = true;          // a copy or the C partition: each element once
  std::vector<int64_t> offending;  // tile elements a violation names
  std::vector<std::string> notes;  // the violations' messages
};

// A and B's g2s copies, A and B's MMA partitions (with their s2r disagreements and conflicting
// reads marked), C's MMA partition and the epilogue: as far as the description allows (a view
// whose partition cannot be formed is left out; the report already says why).
std::vector<TileView> tile_views(const Pipeline& p, const KernelReport& r);

}  // namespace tfspec::kernel
