// §1 ShapeDim: a symbolic dimension, i.e. a named dim or an expression over named dims
// (+, -, *, floor-div, mod) with integer constants. Immutable; shared by pointer.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace tfspec {

struct ExprNode;
using ShapeDim = std::shared_ptr<const ExprNode>;
using Bindings = std::map<std::string, int64_t>;

struct ExprNode {
  enum class Op { Const, Var, Add, Sub, Mul, FloorDiv, Mod };
  Op op;
  int64_t value = 0;  // Const
  std::string name;   // Var
  ShapeDim lhs, rhs;  // binary ops
  int depth = 1;      // of the tree (bounded by kMaxExprDepth)
  int terms = 1;      // literals and names as printed (bounded by kMaxExprTerms); a negation
                      // 0 - x prints as -x, so it has the terms of x
};

// Size bounds (rule "expression-too-large"): every walk over an expression recurses, so every
// expression, parsed or built by the algebra, has at most kMaxExprTerms terms and depth
// kMaxExprDepth. Bounding built expressions by the parser's term bound keeps print -> parse
// total: whatever the reference prints, it reads back.
inline constexpr int kMaxExprTerms = 256;
inline constexpr int kMaxExprDepth = 512;

ShapeDim dim_const(int64_t v);
ShapeDim dim_var(const std::string& name);  // name must be an identifier, not a reserved word
// Builds op(a, b), folding constants (and the identities x*1, x+0, x-0, x//1) so that a
// concrete result always comes back as a Const.
ShapeDim dim_binary(ExprNode::Op op, ShapeDim a, ShapeDim b);

bool is_const(const ShapeDim& d);
std::optional<int64_t> const_value(const ShapeDim& d);
bool structurally_equal(const ShapeDim& a, const ShapeDim& b);
// Value under bindings; SpecError("unbound-dim") names a symbol without a value.
int64_t evaluate(const ShapeDim& d, const Bindings& env);
void collect_vars(const ShapeDim& d, std::set<std::string>& out);
// Text: minimal parentheses, `//` for floor division, `%` for mod.
std::string to_string(const ShapeDim& d);
bool is_reserved_word(const std::string& name);  // None, o, _

}  // namespace tfspec
