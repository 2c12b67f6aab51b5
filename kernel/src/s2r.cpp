// make_tiled_copy_A/B (CuTe), written out: the atom's destination layout is the reference, so
// source position src(ts, vs) is the destination slot dst^-1(src(ts, vs)), and that slot holds the
// MMA's value of the same thread and chunk; its element is the address the source thread reads.
#include "s2r.hpp"

#include <algorithm>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) { fail(rule::kKernelInput, path + ": " + what, path); }

// A layout given in bits (CuTe's traits) read in elements of `group` bits: each run of `group`
// bit values must be `group` consecutive bits starting at an element boundary (CuTe's upcast).
std::vector<int64_t> element_table(const Layout& l, int64_t threads, int64_t group, const std::string& path) {
  const int64_t values = l.size() / threads;
  if (values % group != 0) bad(path, to_string(l) + ": its " + std::to_string(values) + " bit values are not whole " + std::to_string(group) + "-bit elements");
  std::vector<int64_t> out(static_cast<size_t>(threads * (values / group)));
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t v = 0; v < values / group; ++v) {
      const int64_t first = l(t + threads * (v * group));
      for (int64_t b = 0; b < group; ++b)
        if (first % group != 0 || l(t + threads * (v * group + b)) != first + b)
          bad(path, to_string(l) + ": thread " + std::to_string(t) + "'s bits " + std::to_string(v * group) + ".." + std::to_string(v * group + group - 1) +
                        " are not one " + std::to_string(group) + "-bit element");
      out[static_cast<size_t>(t + threads * v)] = first / group;
    }
  return out;
}

// (thread, value) -> position of every pair (in elements), onto [0, n): one-to-one for a
// destination; a source may name a position twice (ldmatrix x1 / x2: the threads past the rows the
// atom reads repeat others' addresses, which the hardware ignores).
std::vector<int64_t> positions(std::vector<int64_t> pos, int64_t n, bool one_to_one, const std::string& what, const std::string& path) {
  std::vector<char> seen(static_cast<size_t>(n), 0);
  for (const int64_t x : pos) {
    if (x < 0 || x >= n || (one_to_one && seen[static_cast<size_t>(x)]))
      bad(path, what + " is not " + (one_to_one ? "one-to-one onto" : "inside") + " the atom's " + std::to_string(n) + " positions");
    seen[static_cast<size_t>(x)] = 1;
  }
  if (std::count(seen.begin(), seen.end(), 0) > 0) bad(path, what + " leaves some of the atom's " + std::to_string(n) + " positions unnamed");
  return pos;
}

std::vector<int64_t> table(const CopyAtom& atom, const Layout& l, int64_t threads, int64_t elem_bits, const std::string& path) {
  if (atom.in_bits) return element_table(l, threads, elem_bits, path);
  std::vector<int64_t> out(static_cast<size_t>(l.size()));
  for (int64_t i = 0; i < l.size(); ++i) out[static_cast<size_t>(i)] = l(i);
  return out;
}

}  // namespace

S2rCopy derive_s2r(const Pipeline& p, const Operand& o, const Partition& expected) {
  const CopyAtom& atom = *o.s2r;
  S2rCopy s;
  s.atom_threads = product_int(atom.src.shape_ref()[0]);
  if (product_int(atom.dst.shape_ref()[0]) != s.atom_threads)
    bad(atom.path, "src " + to_string(atom.src) + " and dst " + to_string(atom.dst) + " are not over the same threads");
  const int64_t unit = atom.in_bits ? o.bits : 1;
  s.src_values = product_int(atom.src.shape_ref()[1]) / unit;
  s.dst_values = product_int(atom.dst.shape_ref()[1]) / unit;
  // What the MMA and the atom's own destination allow is compared before any table is built: a
  // source thread names each of the atom's positions at most once.
  if (s.dst_values < 1 || expected.values % s.dst_values != 0 || s.atom_threads > p.threads || p.threads % s.atom_threads != 0)
    bad(atom.path, "the MMA's " + std::to_string(expected.values) + " values per thread over " + std::to_string(p.threads) +
                       " threads are not a whole number of the atom's " + std::to_string(s.dst_values) + " values over " + std::to_string(s.atom_threads) + " threads");
  const int64_t space = s.atom_threads * s.dst_values;
  if (s.src_values > space)
    bad(atom.path + ".src", "each source thread names " + std::to_string(s.src_values) + " values, more than the atom's " + std::to_string(space) + " positions");
  const std::vector<int64_t> src_pos =
      positions(table(atom, atom.src, s.atom_threads, o.bits, atom.path + ".src"), space, false, to_string(atom.src), atom.path + ".src");
  s.dst_pos = positions(table(atom, atom.dst, s.atom_threads, o.bits, atom.path + ".dst"), space, true, to_string(atom.dst), atom.path + ".dst");
  // A position named by several source threads is read from the first (the lowest thread).
  s.src_of_pos.assign(static_cast<size_t>(space), {-1, -1});
  for (int64_t v = 0; v < s.src_values; ++v)
    for (int64_t t = 0; t < s.atom_threads; ++t) {
      auto& first = s.src_of_pos[static_cast<size_t>(src_pos[static_cast<size_t>(t + s.atom_threads * v)])];
      if (first.first < 0 || t < first.first) first = {t, v};
    }
  s.src_reads.assign(src_pos.size(), 0);
  for (int64_t v = 0; v < s.src_values; ++v)
    for (int64_t t = 0; t < s.atom_threads; ++t)
      s.src_reads[static_cast<size_t>(t + s.atom_threads * v)] = s.src_of_pos[static_cast<size_t>(src_pos[static_cast<size_t>(t + s.atom_threads * v)])] == std::pair{t, v};
  if (atom.bits % o.bits != 0 || s.src_values % (atom.bits / o.bits) != 0)
    bad(atom.path + ".bits", std::to_string(atom.bits) + " bits per access do not divide a source thread's " + std::to_string(s.src_values) + " values of " + std::to_string(o.bits) + " bits");
  s.vector = atom.bits / o.bits;
  s.chunks = expected.values / s.dst_values;
  s.threads = p.threads;
  std::vector<std::pair<int64_t, int64_t>> dst_of_pos(s.dst_pos.size());
  for (int64_t i = 0; i < static_cast<int64_t>(s.dst_pos.size()); ++i)
    dst_of_pos[static_cast<size_t>(s.dst_pos[static_cast<size_t>(i)])] = {i % s.atom_threads, i / s.atom_threads};
  s.src.resize(static_cast<size_t>(s.threads * s.values()));
  for (int64_t t = 0; t < s.threads; ++t) {
    const int64_t warp = t / s.atom_threads, ts = t % s.atom_threads;
    for (int64_t c = 0; c < s.chunks; ++c)
      for (int64_t vs = 0; vs < s.src_values; ++vs) {
        const auto [td, vd] = dst_of_pos[static_cast<size_t>(src_pos[static_cast<size_t>(ts + s.atom_threads * vs)])];
        s.src[static_cast<size_t>(t * s.values() + c * s.src_values + vs)] = expected.at(td + s.atom_threads * warp, c * s.dst_values + vd);
      }
  }
  return s;
}

}  // namespace tfspec::kernel
