// CuTe's make_tiled_copy_A/B, written with the reference's layout algebra as CuTe defines it
// (TiledMMA::thrfrg_A/B and get_layoutA/B_TV): the thread-value layout a tiled copy made from a
// tiled MMA has (spec/KERNEL.md "The tiled copy make_tiled_copy_A/B builds"). partition.cpp's
// mma_partition computes the same partition by index arithmetic over the CTA tile; this one is the
// algebra over one MMA tile, so a reader of an IR can compare the tiled copy it states with it.
#include <optional>

#include "tfspec/kernel/partition.hpp"
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {
namespace mma_copy_impl {

[[noreturn]] void refuse(const std::string& path, const std::string& what) { fail(rule::kKernelInput, path + ": " + what, path); }

Tiler by_mode(const Layout& p, const Layout& k) { return Tiler(std::vector<Tiler>{Tiler(p), Tiler(k)}); }

Layout identity(int64_t n) { return Layout(IntTuple(n)); }

Layout ignored(int64_t n) { return Layout(IntTuple(n), IntTuple(int64_t{0})); }

// thread index -> the index of (ThrV, WM, WN, WK) in the MMA's thread layout (atom threads, then
// the atom layout scaled by them: CuTe's tiled_product(AtomThrID, AtomLayoutMNK)); the atom
// layout must number the atoms one-to-one, or no thread index names one atom thread.
Layout thread_coordinates(const Mma& mma, const std::string& path) {
  const Layout vmnk = logical_product(identity(mma.atom_threads), Tiler(mma.atoms));
  const Layout inverse = right_inverse(vmnk);
  const int64_t n = vmnk.size();
  if (inverse.size() < n) refuse(path, "the atom layout " + to_string(mma.atoms) + " does not number " + std::to_string(n / mma.atom_threads) + " atoms one-to-one");
  for (int64_t t = 0; t < n; ++t)
    if (vmnk(inverse(t)) != t) refuse(path, "the atom layout " + to_string(mma.atoms) + " does not number its atoms one-to-one (thread " + std::to_string(t) + ")");
  return composition(inverse, identity(n));
}

}  // namespace mma_copy_impl

MmaCopyLayout mma_copy_layout(const Mma& mma, char operand) {
  using namespace mma_copy_impl;
  const std::string path = "mma." + std::string(1, operand);
  if (operand != 'A' && operand != 'B') refuse(path, "a tiled copy is made from the A or B partition only");
  const std::optional<Layout>& atom_tv = operand == 'A' ? mma.a : mma.b;
  if (!atom_tv) refuse(path, "the operand is read from shared memory: no tiled copy is made from its partition");
  if (mma.atoms.rank() != 3 || atom_tv->rank() != 2) refuse(path, "the atom layout " + to_string(mma.atoms) + " is not (M, N, K), or the atom's TV " + to_string(*atom_tv) + " not (thread, value)");
  const size_t p = operand == 'A' ? 0 : 1;
  const int64_t atom_p = operand == 'A' ? mma.m : mma.n, atom_k = mma.k;
  const int64_t ways_p = product_int(mma.atoms.shape_ref()[p]), ways_k = product_int(mma.atoms.shape_ref()[2]);
  // permutation_mnk: an unset mode is the identity over the atom's extent times its atoms.
  const Layout perm_p = mma.perm[p].value_or(identity(atom_p * ways_p)), perm_k = mma.perm[2].value_or(identity(atom_k * ways_k));
  MmaCopyLayout out;
  out.rows = perm_p.size(), out.cols = perm_k.size();
  // thrfrg_A/B of the (rows, cols) identity: reorder by the permutation, cut into atoms
  // ((AtomP,AtomK),(RestP,RestK)), the atom's (P,K) -> (thread, value) composed in, and the atoms
  // the MMA's threads own cut out of the rest: ((WaysP,WaysK),(RestP',RestK')).
  const Layout ref(IntTuple::tuple({IntTuple(out.rows), IntTuple(out.cols)}));
  const Layout atoms = zipped_divide(logical_divide(ref, by_mode(perm_p, perm_k)), by_mode(identity(atom_p), identity(atom_k)));
  const Layout in_atom = composition(atoms.mode(0), *atom_tv);  // (ThrV, FrgV)
  const Layout ways = zipped_divide(atoms.mode(1), by_mode(identity(ways_p), identity(ways_k)));
  if (in_atom.rank() != 2 || ways.rank() != 2 || ways.mode(0).rank() != 2) refuse(path, "the atom's TV " + to_string(*atom_tv) + " does not keep its (thread, value) modes");
  // (ThrV, WM, WN, WK) -> index: the operand's threads repeat along the mode it lacks (stride 0,
  // CuTe's atile/btile), then thread indices go through the inverse of the MMA's thread layout.
  const Layout lacked = ignored(product_int(mma.atoms.shape_ref()[1 - p]));
  const Layout wp = ways.mode(0).mode(0), wk = ways.mode(0).mode(1);
  const Layout by_thread = make_layout(p == 0 ? std::vector<Layout>{in_atom.mode(0), wp, lacked, wk} : std::vector<Layout>{in_atom.mode(0), lacked, wp, wk});
  const Layout threads = composition(by_thread, thread_coordinates(mma, path));
  out.tv = make_layout({threads, make_layout({in_atom.mode(1), ways.mode(1)})});
  return out;
}

}  // namespace tfspec::kernel
