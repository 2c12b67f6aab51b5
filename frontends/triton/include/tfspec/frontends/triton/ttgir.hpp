// A reader of Triton's TTGIR text (`compiled.asm["ttgir"]`, spec/TRITON.md §1; issue 48): module
// attributes, the encodings, every tensor and memdesc type, and the ops that move data, each with
// its IR line and source location. Ops of Triton's dialects it does not read are listed, never
// guessed; other dialects' ops (arith, scf, math) are kept for the dataflow facts only.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/frontends/triton/encoding.hpp"

namespace tfspec::triton {

struct TypeInfo {
  enum class Kind { Scalar, Tensor, MemDesc } kind = Kind::Scalar;
  std::vector<int64_t> shape;        // empty for a scalar
  std::vector<int64_t> alloc_shape;  // a memdesc's allocation (its trailing shape when printed), else shape
  std::string elem;                  // f16, f32, i32, ... (a pointer's pointee)
  bool pointer = false;              // !tt.ptr<elem> (or a tensor of them)
  int64_t elem_bits = 0;
  std::shared_ptr<const Encoding> encoding;  // null: none
  std::string text;
};

struct Op {
  std::string name;  // ttg.local_load, tt.dot, arith.addi, ...
  std::vector<std::string> results, operands;  // SSA names without '%'
  std::vector<TypeInfo> in_types, out_types;   // the types after ':' (before and after '->')
  std::map<std::string, int64_t> attrs;        // integer attributes: axis, start, end, contiguity, opIdx, ...
  std::vector<int64_t> offsets;                // memdesc_subslice's static offsets `%x[0, 16]`
  int line = 0;                                // 1-based line of the TTGIR
  int end_line = 0;                            // an op with regions (scf.for, scf.if): the line closing them; else line
  std::string predicate;                       // arith.cmpi's predicate word (slt, sge, ...)
  std::string loc;                             // "kernels.py:20:12"; empty where the IR has none
};

struct Argument {
  std::string name;
  TypeInfo type;
  int64_t divisibility = 1;  // tt.divisibility (bytes for a pointer, a factor for an integer)
};

struct Module {
  int64_t num_warps = 0, threads_per_warp = 32, num_ctas = 1;
  std::string target, kernel;  // "cuda:80", the tt.func's name
  std::string loc;             // the tt.func's location (its definition line), empty where the IR has none
  Aliases aliases;
  std::vector<std::string> alias_order;  // as defined
  std::vector<Argument> args;
  std::vector<Op> ops;
  std::vector<std::string> unknown;  // "line 12: ttg.foo (op not read)", "#x = #ttg.amd_mfma (not derived)"
};

// triton-input (§1) with the line for text that is not TTGIR as this reader knows it.
Module read_ttgir(std::string_view text);

// The ops of Triton's dialects the reader knows (data movement, and the dataflow it follows).
bool known_op(std::string_view name);

}  // namespace tfspec::triton
