// §1 symbolic dims.
#include "tfspec/reference/shapedim.hpp"

#include <algorithm>
#include <cctype>

#include "tfspec/reference/checked.hpp"

namespace tfspec {

using Op = ExprNode::Op;

ShapeDim dim_const(int64_t v) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Const;
  n->value = v;
  return n;
}

bool is_reserved_word(const std::string& name) { return name == "None" || name == "o" || name == "_"; }

ShapeDim dim_var(const std::string& name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok || is_reserved_word(name)) fail(rule::kBadDimName, "'" + name + "' is not a valid symbolic dim name");
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Var;
  n->name = name;
  return n;
}

bool is_const(const ShapeDim& d) { return d && d->op == Op::Const; }
std::optional<int64_t> const_value(const ShapeDim& d) {
  if (is_const(d)) return d->value;
  return std::nullopt;
}

static int64_t apply_op(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::Add: return checked_add(a, b);
    case Op::Sub: return checked_sub(a, b);
    case Op::Mul: return checked_mul(a, b);
    case Op::FloorDiv: return floor_div(a, b);
    case Op::Mod: return floor_mod(a, b);
    default: fail(rule::in(rule::kInternal, "§1"), "not a binary operator");
  }
}

ShapeDim dim_binary(Op op, ShapeDim a, ShapeDim b) {
  auto ca = const_value(a), cb = const_value(b);
  if (ca && cb) return dim_const(apply_op(op, *ca, *cb));
  if (cb && *cb == 0 && (op == Op::FloorDiv || op == Op::Mod))
    fail(rule::kDivisionByZero, "symbolic expression divides by the constant 0");
  if (op == Op::Mul) {
    if (ca && *ca == 1) return b;
    if (cb && *cb == 1) return a;
    if ((ca && *ca == 0) || (cb && *cb == 0)) return dim_const(0);
  }
  if (op == Op::Add) {
    if (ca && *ca == 0) return b;
    if (cb && *cb == 0) return a;
  }
  if (op == Op::Sub && cb && *cb == 0) return a;
  if (op == Op::FloorDiv && cb && *cb == 1) return a;
  if (op == Op::Mod && cb && *cb == 1) return dim_const(0);
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->depth = 1 + std::max(a->depth, b->depth);
  if (n->depth > kMaxExprDepth)
    fail(rule::kExpressionTooLarge, "an expression nests deeper than " + std::to_string(kMaxExprDepth) + " operators");
  bool negation = op == Op::Sub && ca && *ca == 0;
  n->terms = negation ? b->terms : a->terms + b->terms;
  if (n->terms > kMaxExprTerms)
    fail(rule::kExpressionTooLarge, "an expression would have " + std::to_string(n->terms) + " terms, more than " +
                                        std::to_string(kMaxExprTerms) + " (e.g. the prefix product of many symbolic extents)");
  n->lhs = std::move(a);
  n->rhs = std::move(b);
  return n;
}

bool structurally_equal(const ShapeDim& a, const ShapeDim& b) {
  if (a == b) return true;
  if (!a || !b || a->op != b->op) return false;
  switch (a->op) {
    case Op::Const: return a->value == b->value;
    case Op::Var: return a->name == b->name;
    default: return structurally_equal(a->lhs, b->lhs) && structurally_equal(a->rhs, b->rhs);
  }
}

int64_t evaluate(const ShapeDim& d, const Bindings& env) {
  switch (d->op) {
    case Op::Const: return d->value;
    case Op::Var: {
      auto it = env.find(d->name);
      if (it == env.end()) fail(rule::kUnboundDim, "symbolic dim '" + d->name + "' has no value");
      return it->second;
    }
    default: return apply_op(d->op, evaluate(d->lhs, env), evaluate(d->rhs, env));
  }
}

void collect_vars(const ShapeDim& d, std::set<std::string>& out) {
  if (d->op == Op::Var) out.insert(d->name);
  if (d->lhs) collect_vars(d->lhs, out);
  if (d->rhs) collect_vars(d->rhs, out);
}

static int precedence(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Sub: return 1;
    case Op::Mul:
    case Op::FloorDiv:
    case Op::Mod: return 2;
    default: return 3;
  }
}

static const char* spelling(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::FloorDiv: return "//";
    case Op::Mod: return "%";
    default: return "?";
  }
}

// 0 - x, what a unary minus builds: printed `-x`, binding like an operand, so printing never
// adds terms the parser counts (kMaxExprTerms).
static bool is_negation(const ShapeDim& d) { return d->op == Op::Sub && d->lhs->op == Op::Const && d->lhs->value == 0; }
static int print_precedence(const ShapeDim& d) { return is_negation(d) ? 3 : precedence(d->op); }

std::string to_string(const ShapeDim& d) {
  switch (d->op) {
    case Op::Const: return std::to_string(d->value);
    case Op::Var: return d->name;
    default: break;
  }
  if (is_negation(d)) {
    std::string x = to_string(d->rhs);
    return print_precedence(d->rhs) < 3 ? "-(" + x + ")" : "-" + x;
  }
  int p = precedence(d->op);
  std::string l = to_string(d->lhs), r = to_string(d->rhs);
  // Left operand: parenthesize a looser operator, or a negative constant (so `-2*M` re-parses the same).
  if (print_precedence(d->lhs) < p) l = "(" + l + ")";
  // Right operand: operators are left-associative, so an equal-precedence right operand needs parens.
  if (print_precedence(d->rhs) <= p && d->rhs->op != Op::Const && d->rhs->op != Op::Var) r = "(" + r + ")";
  if (d->rhs->op == Op::Const && d->rhs->value < 0) r = "(" + r + ")";
  return l + spelling(d->op) + r;
}

}  // namespace tfspec
