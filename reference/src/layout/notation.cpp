// Text notation: a small recursive-descent parser with a depth bound, and the printer.
#include "tfspec/reference/notation.hpp"

#include <cctype>
#include <map>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {
namespace {

constexpr int64_t kMaxSymbolicExponent = 16;  // M^16 is 16 factors; beyond, write the product out

struct Parser {
  std::string_view s;
  size_t pos = 0;
  int nesting = 0;
  int terms = 0;  // primaries of the expression being read (element() starts a new one)
  bool allow_wildcard = false;

  [[noreturn]] void error(const std::string& what) const {
    fail(rule::kParseError, what + " at offset " + std::to_string(pos) + " in '" + std::string(s.substr(0, 200)) + "'");
  }
  void skip_ws() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  bool at_end() {
    skip_ws();
    return pos >= s.size();
  }
  char peek() {
    skip_ws();
    return pos < s.size() ? s[pos] : '\0';
  }
  bool accept(char c) {
    if (peek() == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) error(std::string("expected '") + c + "'");
  }
  void enter() {
    if (++nesting > kMaxDepth) fail(rule::kNestingTooDeep, "input nests deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  void leave() { --nesting; }

  bool peek_word(std::string_view w) {
    skip_ws();
    if (s.substr(pos, w.size()) != w) return false;
    size_t e = pos + w.size();
    return e >= s.size() || !(std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_');
  }
  std::string ident() {
    skip_ws();
    size_t b = pos;
    while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) ++pos;
    return std::string(s.substr(b, pos - b));
  }
  // A literal; `negative` (after a unary minus) accumulates downwards so INT64_MIN is readable
  // as -9223372036854775808, the way it prints.
  int64_t integer(bool negative = false) {
    skip_ws();
    size_t b = pos;
    int64_t v = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      int d = s[pos] - '0';
      if (negative ? v < (INT64_MIN + d) / 10 : v > (INT64_MAX - d) / 10)
        fail(rule::kIntLiteralRange, "integer literal '" + std::string(s.substr(b, 40)) + "...' does not fit int64");
      v = negative ? v * 10 - d : v * 10 + d;
      ++pos;
    }
    if (pos == b) error("expected an integer");
    return v;
  }

  // Binary operator at the cursor: returns its precedence (0 if none) and length.
  int peek_op(ExprNode::Op& op, size_t& len) {
    char c = peek();
    len = 1;
    switch (c) {
      case '+': op = ExprNode::Op::Add; return 1;
      case '-': op = ExprNode::Op::Sub; return 1;
      case '*': op = ExprNode::Op::Mul; return 2;
      case '%': op = ExprNode::Op::Mod; return 2;
      case '/':
        op = ExprNode::Op::FloorDiv;
        if (pos + 1 < s.size() && s[pos + 1] == '/') len = 2;
        return 2;
      default: return 0;
    }
  }

  // Terms are the literals and names of an expression (what printing keeps, never adds).
  void count_term() {
    if (++terms > kMaxExprTerms)
      fail(rule::kExpressionTooLarge, "an expression has more than " + std::to_string(kMaxExprTerms) + " terms (at offset " + std::to_string(pos) + ")");
  }

  ShapeDim primary() {
    char c = peek();
    if (c == '(') {
      ++pos;
      enter();
      ShapeDim e = expr(1);
      expect(')');
      leave();
      return e;
    }
    if (c == '-') {
      ++pos;
      skip_ws();
      if (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        const size_t literal = pos;
        count_term();
        const int64_t v = integer(true);
        if (!at_power()) return dim_const(v);
        pos = literal;  // -2^3 is -(2^3): the power binds tighter than the minus
        --terms;
      }
      enter();
      ShapeDim e = power();
      leave();
      if (auto v = const_value(e)) return dim_const(checked_sub(0, *v));
      return dim_binary(ExprNode::Op::Sub, dim_const(0), e);
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      count_term();
      return dim_const(integer());
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      count_term();
      size_t at = pos;
      std::string name = ident();
      if (is_reserved_word(name)) {
        pos = at;
        error("'" + name + "' cannot be used inside an expression");
      }
      return dim_var(name);
    }
    error(c == '\0' ? "unexpected end of input" : std::string("unexpected '") + c + "'");
  }

  // Precedence climbing; `lhs` may be supplied (a grouped expression already parsed).
  // `^` or `**` at the cursor (a power: M <= 2^29, 2**16).
  bool at_power() {
    const char c = peek();
    return c == '^' || (c == '*' && pos + 1 < s.size() && s[pos + 1] == '*');
  }

  // primary [^ N]: the exponent is a non-negative integer literal, so a power is a constant or a
  // product of copies of its base (M^3 is M*M*M); nothing new reaches the solver's encoders.
  ShapeDim power() { return raise(primary()); }

  ShapeDim raise(ShapeDim base) {
    if (!at_power()) return base;
    pos += peek() == '^' ? 1 : 2;
    skip_ws();
    if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos]))) error("an exponent is a non-negative integer literal");
    const size_t at = pos;
    const int64_t n = integer();
    if (at_power()) error("write a tower of powers with parentheses");
    if (auto b = const_value(base)) {
      if (*b == 0 || *b == 1) return dim_const(n == 0 ? 1 : *b);
      if (*b == -1) return dim_const(n % 2 == 0 ? 1 : -1);
      int64_t v = 1;  // |b| >= 2: overflows within 63 steps
      for (int64_t i = 0; i < n; ++i)
        if (__builtin_mul_overflow(v, *b, &v))
          fail(rule::kIntLiteralRange, "the power at offset " + std::to_string(at) + " does not fit int64");
      return dim_const(v);
    }
    if (n > kMaxSymbolicExponent)
      fail(rule::kExpressionTooLarge, "a symbolic base is raised to at most the power " + std::to_string(kMaxSymbolicExponent) + " (at offset " +
                                          std::to_string(at) + ")");
    if (n == 0) return dim_const(1);
    ShapeDim product = base;
    for (int64_t i = 1; i < n; ++i) {
      count_term();
      product = dim_binary(ExprNode::Op::Mul, product, base);
    }
    return product;
  }

  ShapeDim expr(int min_prec, ShapeDim lhs = nullptr) {
    lhs = lhs ? raise(lhs) : power();
    for (;;) {
      ExprNode::Op op;
      size_t len;
      int p = peek_op(op, len);
      if (p == 0 || p < min_prec) return lhs;
      pos += len;
      ShapeDim rhs = power();
      for (;;) {
        ExprNode::Op op2;
        size_t len2;
        int p2 = peek_op(op2, len2);
        if (p2 <= p) break;
        rhs = expr(p2, rhs);
      }
      lhs = dim_binary(op, lhs, rhs);
    }
  }

  IntTuple element() {
    char c = peek();
    if (c == '(') {
      ++pos;
      enter();
      std::vector<IntTuple> items;
      bool trailing_comma = false;
      if (!accept(')')) {
        for (;;) {
          items.push_back(element());
          if (accept(')')) break;
          expect(',');
          if (accept(')')) {
            trailing_comma = true;
            break;
          }
        }
      }
      leave();
      ExprNode::Op op;
      size_t len;
      if (items.size() == 1 && !trailing_comma && (items[0].is_int() || items[0].is_sym()) && (peek_op(op, len) || at_power())) {
        return IntTuple::sym(expr(1, items[0].as_dim()));  // `(M+1)*2`: the parentheses grouped an expression
      }
      return IntTuple::tuple(std::move(items));
    }
    if (peek_word("None")) {
      pos += 4;
      return IntTuple::none();
    }
    if (peek_word("_")) {
      if (!allow_wildcard) error("'_' (wildcard) is only allowed in slicing coordinates");
      pos += 1;
      return IntTuple::none();
    }
    terms = 0;
    return IntTuple::sym(expr(1));
  }

  void finish() {
    if (!at_end()) error(std::string("unexpected trailing '") + peek() + "'");
  }

  // X1: `Sw<B,M,S>` at the cursor (S may be negative).
  bool at_swizzle() {
    if (!peek_word("Sw")) return false;
    size_t q = s.find_first_not_of(" \t\r\n", pos + 2);
    return q != std::string_view::npos && s[q] == '<';
  }
  int64_t signed_integer() {
    const bool negative = accept('-');
    return integer(negative);
  }
  std::shared_ptr<Swizzle> swizzle() {
    pos += 2;
    expect('<');
    const int64_t b = signed_integer();
    expect(',');
    const int64_t m = signed_integer();
    expect(',');
    const int64_t sh = signed_integer();
    expect('>');
    return std::make_shared<Swizzle>(b, m, sh);
  }
  // The offset of a composition: an integer, or CuTe's printed static integer `_N`.
  int64_t composed_offset() {
    if (peek() == '_' && pos + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[pos + 1]))) ++pos;
    return require_int(element(), "ComposedLayout offset");
  }

  // Layout or the None component of a composition (returns nullptr for None).
  std::shared_ptr<Layout> layout_or_none(bool allow_none) {
    if (allow_none && peek_word("None")) {
      size_t save = pos;
      pos += 4;
      if (peek() != ':') return nullptr;
      pos = save;  // `None:...` is a shape with a None extent
    }
    IntTuple shape = element();
    if (!accept(':')) return std::make_shared<Layout>(shape);
    if (peek_word("None")) {
      pos += 4;
      return std::make_shared<Layout>(Layout::unmaterialized(shape));
    }
    IntTuple stride = element();
    return std::make_shared<Layout>(shape, stride);
  }
};

}  // namespace

IntTuple parse_inttuple(std::string_view text) {
  Parser p{text};
  IntTuple t = p.element();
  p.finish();
  return t;
}

IntTuple parse_coord(std::string_view text) {
  Parser p{text};
  p.allow_wildcard = true;
  IntTuple t = p.element();
  p.finish();
  return t;
}

ShapeDim parse_dim(std::string_view text) {
  Parser p{text};
  ShapeDim d = p.expr(1);
  p.finish();
  return d;
}

Layout parse_layout(std::string_view text) {
  Parser p{text};
  auto l = p.layout_or_none(false);
  p.finish();
  return *l;
}

LayoutPtr parse_pure_layout(std::string_view text) {
  Parser p{text};
  LayoutPtr first = p.at_swizzle() ? LayoutPtr(p.swizzle()) : LayoutPtr(p.layout_or_none(true));
  if (!p.peek_word("o")) {
    if (!first) p.error("'None' alone is not a layout");
    p.finish();
    return first;
  }
  p.pos += 1;
  int64_t offset = p.composed_offset();
  if (!p.peek_word("o")) p.error("expected 'o' after the offset of a composed layout");
  p.pos += 1;
  if (p.at_swizzle())
    fail(rule::kSwizzlePosition, "a swizzle maps offsets, so it is the inner (left) part of a composed layout, not the outer: " + std::string(text.substr(0, 200)));
  auto outer = p.layout_or_none(true);
  p.finish();
  return std::make_shared<ComposedLayout>(first, offset, outer);
}

static void print_rec(const IntTuple& t, bool wildcard, std::string& out) {
  switch (t.kind()) {
    case IntTuple::Kind::Int: out += std::to_string(t.value()); return;
    case IntTuple::Kind::Sym: out += to_string(t.dim()); return;
    case IntTuple::Kind::None: out += wildcard ? "_" : "None"; return;
    case IntTuple::Kind::Tuple:
      out += '(';
      for (size_t i = 0; i < t.len(); ++i) {
        if (i) out += ',';
        print_rec(t[i], wildcard, out);
      }
      out += ')';
      return;
  }
}

std::string to_string(const IntTuple& t) {
  std::string out;
  print_rec(t, false, out);
  return out;
}

std::string coord_to_string(const IntTuple& t) {
  std::string out;
  print_rec(t, true, out);
  return out;
}

std::string to_string(const Layout& l) {
  return to_string(l.shape_ref()) + ":" + (l.materialized() ? to_string(l.stride()) : std::string("None"));
}

// ---- tilers (A4; the type and the algebra over it: algebra.hpp)
namespace {
size_t matching_paren(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (depth == 0) return i;
  }
  fail(rule::in(rule::kParseError, "§3"), "unbalanced brackets in tiler '" + std::string(s.substr(0, 200)) + "'");
}

Tiler parse_tiler_rec(std::string_view s, int depth) {
  if (depth > kMaxDepth) fail(rule::in(rule::kNestingTooDeep, "§3"), "tiler nests too deeply");
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  if (b == std::string_view::npos) fail(rule::in(rule::kParseError, "§3"), "empty tiler");
  s = s.substr(b, e - b + 1);
  // CuTe: a tuple without a top-level stride is a by-mode tiler; each element is itself a tiler.
  if (s[0] != '(' || matching_paren(s, 0) != s.size() - 1) return Tiler(parse_layout(s));
  std::vector<Tiler> modes;
  std::string_view body = s.substr(1, s.size() - 2);
  if (body.find_first_not_of(" \t\n") == std::string_view::npos) fail(rule::in(rule::kParseError, "§3"), "a by-mode tiler needs at least one mode");
  size_t start = 0;
  int d = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    if (i < body.size() && body[i] == '(') ++d;
    if (i < body.size() && body[i] == ')') --d;
    if (i == body.size() || (body[i] == ',' && d == 0)) {
      std::string_view part = body.substr(start, i - start);
      if (i == body.size() && part.find_first_not_of(" \t\n") == std::string_view::npos) break;  // trailing comma
      modes.push_back(parse_tiler_rec(part, depth + 1));
      start = i + 1;
    }
  }
  return Tiler(std::move(modes));
}
}  // namespace

Tiler parse_tiler(std::string_view text) { return parse_tiler_rec(text, 0); }

std::string to_string(const Tiler& t) {
  if (t.is_layout()) return to_string(*t.layout);
  std::string s = "(";
  for (size_t i = 0; i < t.modes.size(); ++i) s += (i ? "," : "") + to_string(t.modes[i]);
  return s + ")";
}

}  // namespace tfspec
