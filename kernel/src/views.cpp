// The pictures' data (views.hpp): the partitions of partition.cpp with the cells the report's
// violations name: the (thread, value) a finding names, the accesses of a conflicting phase's
// threads, the slots whose s2r delivery disagrees.
#include "tfspec/kernel/views.hpp"

#include "s2r.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::kernel {
namespace {

// The elements of thread t's access `access` (values access * vector .. + vector - 1).
void access_elements(const Partition& part, int64_t t, int64_t first_value, int64_t vector, std::vector<int64_t>& out) {
  for (int64_t j = 0; j < vector && first_value + j < part.values; ++j) out.push_back(part.at(t, first_value + j));
}

// Marks what the violations about `subject` name in a copy's partition.
void mark_copy(const KernelReport& r, const std::string& subject, int64_t vector, TileView& v) {
  for (const Finding& f : r.findings) {
    if (f.outcome != Outcome::Violation || f.subject.rfind(subject, 0) != 0) continue;
    v.notes.push_back(f.check + ": " + f.message);
    if (f.detail.contains("thread") && f.detail.contains("value") && f.detail["thread"].get<int64_t>() < v.part.threads)
      access_elements(v.part, f.detail["thread"], f.detail["value"].get<int64_t>() / vector * vector, vector, v.offending);
    if (f.detail.contains("worst"))
      for (const Json& t : f.detail["worst"]["threads"]) access_elements(v.part, t, f.detail["worst"]["access"].get<int64_t>() * vector, vector, v.offending);
  }
}

// An MMA operand's partition with the s2r copy's disagreeing slots and conflicting reads marked.
TileView operand_view(const Pipeline& p, const KernelReport& r, const Operand& o) {
  TileView v{std::string(1, o.name) + "-mma.svg", std::string(1, o.name) + ": the tiled MMA's partition (what each thread's registers must hold)", o.name,
             mma_partition(p, o.name), false, {}, {}};
  const S2rCopy s = derive_s2r(p, o, v.part);
  const std::vector<int64_t> got = received(p, o, s, v.part);
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != v.part.index[i]) v.offending.push_back(v.part.index[i]);
  for (const Finding& f : r.findings) {
    if (f.outcome != Outcome::Violation || f.subject.rfind(std::string(1, o.name) + " s2r", 0) != 0) continue;
    v.notes.push_back(f.check + ": " + f.message);
    if (f.detail.contains("worst"))
      for (const Json& t : f.detail["worst"]["threads"])
        for (int64_t j = 0; j < s.vector; ++j)
          v.offending.push_back(s.src[static_cast<size_t>(t.get<int64_t>() * s.values() + f.detail["worst"]["access"].get<int64_t>() * s.vector + j)]);
  }
  return v;
}

template <class F>
void add_view(std::vector<TileView>& out, F make) {
  try {
    out.push_back(make());
  } catch (const SpecError&) {  // the partition cannot be formed: the report names why
  }
}

}  // namespace

std::vector<TileView> tile_views(const Pipeline& p, const KernelReport& r) {
  std::vector<TileView> out;
  for (const Operand* o : {&p.a, &p.b}) {
    const std::string name(1, o->name);
    if (!o->tma)  // a TMA load has no per-thread partition to draw
      add_view(out, [&] {
        TileView v{name + "-g2s.svg", name + ": the global-to-shared copy (each element once per stage)", o->name,
                   copy_partition(o->g2s, o->name == 'A' ? p.bm : p.bn, p.bk), true, {}, {}};
        mark_copy(r, name + " g2s", o->g2s.atom_bits / o->bits, v);
        return v;
      });
    if (o->s2r) add_view(out, [&] { return operand_view(p, r, *o); });
  }
  add_view(out, [&] {
    TileView v{"C-mma.svg", "C: the tiled MMA's accumulators (each element once)", 'C', mma_partition(p, 'C'), true, {}, {}};
    mark_copy(r, "C mma", 1, v);
    return v;
  });
  if (p.epilogue)
    add_view(out, [&] {
      TileView v{"C-epilogue.svg", "C: the epilogue copy (each element once)", 'C', copy_partition(*p.epilogue, p.bm, p.bn), true, {}, {}};
      mark_copy(r, "C epilogue", p.epilogue->atom_bits / p.bits_c, v);
      return v;
    });
  return out;
}

}  // namespace tfspec::kernel
