// The atoms' layouts in elements (spec/KERNEL.md "The atoms' layouts"; the same strings as
// spec/kernel-atoms.json, whose entries kernel_cute_atoms compares with CuTe at every index).
#include "tfspec/kernel/atoms.hpp"

#include "tfspec/reference/notation.hpp"

namespace tfspec::kernel {

std::optional<CopyAtom> ldmatrix_atom(int64_t num_matrices, bool transposed, int64_t elem_bits) {
  if (elem_bits != 16) return std::nullopt;
  // src: the row addresses (x1: the first 8 threads' rows, repeated; x2: the first 16); dst: plain
  // gives thread t row t/4, columns 2(t%4)+{0,1} of each 8x8 matrix, transposed its transpose.
  struct Entry {
    int64_t n;
    const char *src, *dst_n, *dst_t;
  };
  static const Entry kEntries[] = {
      {1, "((8,4),8):((8,0),1)", "(32,2):(2,1)", "((4,8),2):((16,1),8)"},
      {2, "((16,2),8):((8,0),1)", "(32,(2,2)):(2,(1,64))", "((4,8),(2,2)):((16,1),(8,64))"},
      {4, "(32,8):(8,1)", "(32,(2,4)):(2,(1,64))", "((4,8),(2,4)):((16,1),(8,64))"},
  };
  for (const Entry& e : kEntries) {
    if (e.n != num_matrices) continue;
    CopyAtom a;
    a.name = transposed ? "SM75_U16x" + std::to_string(2 * e.n) + "_LDSM_T" : "SM75_U32x" + std::to_string(e.n) + "_LDSM_N";
    a.bits = 128;
    a.src = parse_layout(e.src);
    a.dst = parse_layout(transposed ? e.dst_t : e.dst_n);
    a.path = a.name;
    return a;
  }
  return std::nullopt;
}

std::optional<Mma> sm80_mma_atom(int64_t m, int64_t n, int64_t k, int64_t ab_bits) {
  if (m != 16 || n != 8 || k != 16 || ab_bits != 16) return std::nullopt;
  Mma a;
  a.m = 16, a.n = 8, a.k = 16;
  a.atom_threads = 32;
  a.a = parse_layout("((4,8),(2,2,2)):((32,1),(16,8,128))");
  a.b = parse_layout("((4,8),(2,2)):((16,1),(8,64))");
  a.c = parse_layout("((4,8),(2,2)):((32,1),(16,8))");
  a.atoms = parse_layout("(1,1,1)");
  a.path = "SM80_16x8x16";
  return a;
}

Mma universal_fma_atom() {
  Mma a;
  a.m = 1, a.n = 1, a.k = 1;
  a.atom_threads = 1;
  a.a = parse_layout("(1,1):(0,0)");
  a.b = parse_layout("(1,1):(0,0)");
  a.c = parse_layout("(1,1):(0,0)");
  a.atoms = parse_layout("(1,1,1)");
  a.path = "UniversalFMA";
  return a;
}

std::optional<CopyAtom> universal_copy_atom(int64_t bits, int64_t elem_bits) {
  if (elem_bits <= 0 || bits <= 0 || bits % elem_bits != 0) return std::nullopt;
  const std::string v = std::to_string(bits / elem_bits);
  CopyAtom a;
  a.name = "UniversalCopy<uint" + std::to_string(bits) + "_t>";
  a.bits = bits;
  a.src = parse_layout("(1," + v + "):(0,1)");
  a.dst = parse_layout("(1," + v + "):(0,1)");
  a.path = a.name;
  return a;
}

}  // namespace tfspec::kernel
