// Overflow goals over 64-bit bit-vectors (TOOLING-NOTES: prove injectivity over Int, overflow
// separately over bit-vectors). Private to solver/.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tfspec/solver/encode.hpp"

namespace tfspec::solver {

// ShapeDim -> 64-bit two's-complement term. Every operation whose mathematical result leaves
// int64 records a flag in `overflow`, so that where no flag is set the term equals the Int value.
class BvEncoder {
 public:
  // portable: overflow of a product as plain SMT-LIB (for exported files) rather than Z3's
  // bvsmul_noovfl predicate (which only Z3 reads, but which Z3 decides far faster).
  BvEncoder(z3::context& ctx, bool portable) : ctx_(ctx), portable_(portable) {}
  z3::context& ctx() { return ctx_; }
  z3::expr symbol(const std::string& name);
  z3::expr dim(const ShapeDim& d);
  z3::expr leaf(const IntTuple& leaf);
  z3::expr relation(const Relation& r);
  z3::expr val(int64_t v) { return ctx_.bv_val(v, 64); }
  // Checked operations for terms built outside dim().
  z3::expr add(const z3::expr& a, const z3::expr& b);
  z3::expr mul(const z3::expr& a, const z3::expr& b);
  z3::expr sub(const z3::expr& a, const z3::expr& b);
  const std::map<std::string, z3::expr>& symbols() const { return symbols_; }
  std::vector<z3::expr> overflow, definedness;

 private:
  z3::context& ctx_;
  bool portable_;
  std::map<std::string, z3::expr> symbols_;
};

struct BitvectorOutcome {
  z3::check_result result = z3::unknown;
  std::optional<Bindings> bindings;  // sat: the symbol values
  bool expression_overflow = false;  // sat only because a dim expression leaves int64
  std::string reason;
  double seconds = 0;
};

}  // namespace tfspec::solver
