// The partitions of spec/KERNEL.md "Partitions": a tiled copy repeated over the CTA tile, and the
// tiled MMA's thrfrg (CuTe's TiledMMA::thrfrg_A/B/C) written out as index arithmetic.
#include "tfspec/kernel/partition.hpp"

#include <algorithm>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) { fail(rule::kKernelInput, path + ": " + what, path); }

// Partitions are enumerated: 2^22 (thread, value) pairs is 256 times a 128x128 tile's, and keeps
// a check's tables within a few hundred MB. Beyond it the check is undecided, never a guess.
constexpr int64_t kMaxPairs = int64_t{1} << 22;

void require_enumerable(int64_t threads, int64_t values, const std::string& path) {
  if (checked_mul(threads, values) > kMaxPairs)
    fail(rule::kResourceLimit, path + ": " + std::to_string(threads) + " threads x " + std::to_string(values) + " values is beyond the " +
                                   std::to_string(kMaxPairs) + " (thread, value) pairs the kernel check enumerates");
}

// One mode of the tiled MMA: the CTA's extent, the atom's, the atoms along it and the permutation.
struct MmaMode {
  char name;
  int64_t extent, atom, ways;
  Layout perm;
  int64_t perm_size;
  int64_t rest() const { return extent / (atom * ways); }  // atoms per thread along the mode
  // thrfrg: logical_divide by the permutation, zipped_divide by the atom, then the atom blocks
  // split between the `ways` atoms (block = way + ways * rest); the permutation tile repeats.
  int64_t coord(int64_t way, int64_t rest, int64_t in_atom) const {
    const int64_t blocks_in_perm = perm_size / atom;
    const int64_t block = way + ways * rest;
    return perm(in_atom + atom * (block % blocks_in_perm)) + perm_size * (block / blocks_in_perm);
  }
};

void require_bijection(const Layout& l, int64_t n, const std::string& path, const std::string& what) {
  std::vector<char> seen(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < l.size(); ++i) {
    const int64_t x = l(i);
    if (x < 0 || x >= n || seen[static_cast<size_t>(x)]) bad(path, what + " " + to_string(l) + " is not one-to-one onto [0, " + std::to_string(n) + ")");
    seen[static_cast<size_t>(x)] = 1;
  }
}

MmaMode mma_mode(const Pipeline& p, int which) {
  const char names[] = {'M', 'N', 'K'};
  const int64_t extents[] = {p.bm, p.bn, p.bk};
  const int64_t atoms[] = {p.mma.m, p.mma.n, p.mma.k};
  MmaMode d{names[which], extents[which], atoms[which], product_int(p.mma.atoms.shape_ref()[static_cast<size_t>(which)]), Layout(), 0};
  // Sizes are compared with the tile before anything is multiplied or enumerated: an atom or a
  // permutation larger than the CTA tile is a malformed description, refused at once.
  if (d.atom > d.extent || d.ways > d.extent / d.atom)
    bad("mma", std::to_string(d.ways) + " atom(s) of " + std::string(1, d.name) + " = " + std::to_string(d.atom) + " do not fit in B" + std::string(1, d.name) +
                   " = " + std::to_string(d.extent));
  d.perm = p.mma.perm[static_cast<size_t>(which)].value_or(Layout(IntTuple(d.atom * d.ways)));
  d.perm_size = d.perm.size();
  const std::string at = "mma.permutation[" + std::to_string(which) + "]";
  if (d.perm_size > d.extent)
    bad(at, "the permutation's size " + std::to_string(d.perm_size) + " is larger than B" + std::string(1, d.name) + " = " + std::to_string(d.extent));
  require_bijection(d.perm, d.perm_size, at, "the permutation");
  if (d.perm_size % d.atom != 0) bad(at, "the permutation's size " + std::to_string(d.perm_size) + " is not a multiple of the atom's " + std::string(1, d.name) + " = " + std::to_string(d.atom));
  if (d.extent % d.perm_size != 0 || (d.extent / d.atom) % d.ways != 0)
    bad(at, std::string("B") + d.name + " = " + std::to_string(d.extent) + " is not a whole number of permutation tiles (" + std::to_string(d.perm_size) +
                ") split between " + std::to_string(d.ways) + " atoms");
  return d;
}

// Thread -> its atom's coordinate (wm, wn, wk) in the atom layout (inverted by enumeration).
std::vector<std::array<int64_t, 3>> atom_of_thread(const Pipeline& p) {
  const Layout& atoms = p.mma.atoms;
  const int64_t groups = atoms.size();
  if (checked_mul(groups, p.mma.atom_threads) != p.threads)
    bad("mma.atoms", std::to_string(groups) + " atoms of " + std::to_string(p.mma.atom_threads) + " threads are not the CTA's " + std::to_string(p.threads) + " threads");
  require_bijection(atoms, groups, "mma.atoms", "the atom layout");
  const int64_t wm = product_int(atoms.shape_ref()[0]), wn = product_int(atoms.shape_ref()[1]);
  std::vector<std::array<int64_t, 3>> by_group(static_cast<size_t>(groups));
  for (int64_t i = 0; i < groups; ++i) by_group[static_cast<size_t>(atoms(i))] = {i % wm, (i / wm) % wn, i / (wm * wn)};
  std::vector<std::array<int64_t, 3>> out(static_cast<size_t>(p.threads));
  for (int64_t t = 0; t < p.threads; ++t) out[static_cast<size_t>(t)] = by_group[static_cast<size_t>(t / p.mma.atom_threads)];
  return out;
}

}  // namespace

std::string element_name(char operand, int64_t index, int64_t rows) {
  const char* dims = operand == 'A' ? "mk" : operand == 'B' ? "nk" : "mn";
  return "(" + std::string(1, dims[0]) + "=" + std::to_string(index % rows) + ", " + std::string(1, dims[1]) + "=" + std::to_string(index / rows) + ")";
}

Partition copy_partition(const TiledCopy& c, int64_t rows, int64_t cols) {
  if (rows % c.rows != 0 || cols % c.cols != 0)
    bad(c.path, "the copy's " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + " tile does not divide the " + std::to_string(rows) + "x" +
                    std::to_string(cols) + " CTA tile");
  const int64_t reps_r = rows / c.rows, reps_c = cols / c.cols;
  Partition part{c.threads(), checked_mul(c.values(), reps_r * reps_c), rows, cols, {}};
  require_enumerable(part.threads, part.values, c.path);
  part.index.assign(static_cast<size_t>(part.threads * part.values), -1);
  const int64_t vals = c.values();
  for (int64_t t = 0; t < part.threads; ++t)
    for (int64_t v = 0; v < vals; ++v) {
      const int64_t i = c.tv(t + part.threads * v);
      if (i < 0 || i >= c.rows * c.cols) continue;  // outside the copy's tile: the coverage check names it
      for (int64_t rc = 0; rc < reps_c; ++rc)
        for (int64_t rr = 0; rr < reps_r; ++rr)
          part.index[static_cast<size_t>(t * part.values + v + vals * (rr + reps_r * rc))] = (i % c.rows + c.rows * rr) + rows * (i / c.rows + c.cols * rc);
    }
  return part;
}

Partition mma_partition(const Pipeline& p, char operand) {
  const int which_p = operand == 'B' ? 1 : 0, which_q = operand == 'C' ? 1 : 2;
  const std::optional<Layout>& tv = operand == 'A' ? p.mma.a : operand == 'B' ? p.mma.b : std::optional<Layout>(p.mma.c);
  const std::string path = "mma." + std::string(1, operand);
  if (!tv) bad(path, "the operand is read from shared memory: it has no register partition");
  const MmaMode mp = mma_mode(p, which_p), mq = mma_mode(p, which_q);
  if (tv->rank() != 2 || product_int(tv->shape_ref()[0]) != p.mma.atom_threads)
    bad(path, "the atom's TV layout is (" + std::to_string(p.mma.atom_threads) + " threads, values), got " + to_string(*tv));
  const int64_t frg = product_int(tv->shape_ref()[1]);
  const auto ways = atom_of_thread(p);
  Partition part{p.threads, checked_mul(frg, mp.rest() * mq.rest()), mp.extent, mq.extent, {}};
  require_enumerable(part.threads, part.values, path);
  part.index.resize(static_cast<size_t>(part.threads * part.values));
  for (int64_t t = 0; t < p.threads; ++t) {
    const int64_t thr = t % p.mma.atom_threads;
    const auto& w = ways[static_cast<size_t>(t)];
    for (int64_t v = 0; v < part.values; ++v) {
      const int64_t f = v % frg, r = v / frg;
      const int64_t in_atom = (*tv)(thr + p.mma.atom_threads * f);
      if (in_atom < 0 || in_atom >= mp.atom * mq.atom) bad(path, "the atom's TV layout " + to_string(*tv) + " leaves the " + std::to_string(mp.atom) + "x" + std::to_string(mq.atom) + " atom");
      const int64_t row = mp.coord(w[static_cast<size_t>(which_p)], r % mp.rest(), in_atom % mp.atom);
      const int64_t col = mq.coord(w[static_cast<size_t>(which_q)], r / mp.rest(), in_atom / mp.atom);
      part.index[static_cast<size_t>(t * part.values + v)] = row + mp.extent * col;
    }
  }
  return part;
}

SmemMap smem_map(const Operand& o, int64_t rows, int64_t cols) {
  const std::string path = o.name == 'C' ? std::string("epilogue.smem") : std::string(1, o.name) + ".smem";
  const int64_t n = rows * cols;
  if (product_int(o.smem->shape(), "the shared-memory layout's size") != n)
    bad(path, "the shared-memory layout " + to_string(*o.smem) + " is not over the " + std::to_string(rows) + "x" + std::to_string(cols) + " tile");
  SmemMap m;
  m.offset.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    m.offset[static_cast<size_t>(i)] = o.smem->apply(IntTuple(i));
    if (m.offset[static_cast<size_t>(i)] < 0) bad(path, "tile element " + element_name(o.name, i, rows) + " has offset " + std::to_string(m.offset[static_cast<size_t>(i)]) + " < 0");
  }
  m.cosize = 1 + *std::max_element(m.offset.begin(), m.offset.end());
  if (m.cosize > (int64_t{1} << 24)) bad(path, "the shared-memory layout spans " + std::to_string(m.cosize) + " elements, beyond any shared memory");
  m.element_at.assign(static_cast<size_t>(m.cosize), -1);
  for (int64_t i = 0; i < n; ++i) m.element_at[static_cast<size_t>(m.offset[static_cast<size_t>(i)])] = i;  // aliasing: the coverage check names it
  return m;
}

}  // namespace tfspec::kernel
