// Reading the DSL's MLIR dump (spec/CUTE_DSL.md §1): type aliases, then one op per line.
#include <algorithm>
#include <cctype>
#include <set>

#include "tfspec/frontends/cute_dsl/cute_ir.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::cute_dsl {
namespace {

// The cute.* ops this reader knows (those the fixtures' kernels emit); others are listed.
const std::set<std::string>& known_ops() {
  static const std::set<std::string> k = {
      "cute.get_iter", "cute.get_leaves", "cute.get_shape", "cute.get_layout", "cute.make_coord", "cute.size",
      "cute.make_shape", "cute.make_layout", "cute.make_int_tuple", "cute.slice", "cute.make_view",
      "cute.group_modes", "cute.make_tile", "cute.get_scalars", "cute.logical_divide", "cute.composition",
      "cute.make_atom", "cute.tuple.product_each", "cute.right_inverse", "cute.left_inverse", "cute_nvgpu.atom.tma_partition", "cute.memref.alloca",
      "cute.make_tiled_copy", "cute.composed_get_inner", "cute.local_tile", "cute.get_stride",
      "cute.to_int_tuple", "cute.tiled.copy.retile", "cute.tile_to_shape", "cute.recast_iter",
      "cute.raked_product", "cute.make_stride", "cute.make_layout_like", "cute.cosize", "cute.composed_get_outer",
      "cute.composed_get_offset", "cute.coalesce", "cute.ceil_div", "cute.memref.load_vec", "cute.zipped_divide",
      "cute.tuple.product", "cute.make_tiled_mma", "cute.make_composed_layout", "cute.tuple_div", "cute.tuple_mod",
      "cute.copy", "cute.tiled.copy.partition_S", "cute.tiled.copy.partition_D", "cute.tiled.mma.partition",
      "cute.memref.store_vec", "cute.gemm", "cute.complement", "cute.blocked_product", "cute.logical_product",
      "cute.make_swizzle", "cute.print", "cute.kernel_smem_size", "cute.get_hier_coord", "cute.crd2idx",
      "cute.add_offset", "cute.make_ptr", "cute.memref.store", "cute.memref.load", "cute.atom.set_value",
      "cute.make_fragment_like", "cute.mma.make_fragment", "cute.tiled.mma.partition_shape", "cute.mma.make_fragment", "cute.static", "cute.append_to_rank"};
  return k;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Top-level pieces of s split at sep, outside (), <>, [], {} and quotes; the '>' of "->" is no bracket.
std::vector<std::string_view> split_top(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') || (c == '>' && !(i > 0 && s[i - 1] == '-'))) --depth;
    if (depth == 0 && s.substr(i, sep.size()) == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + sep.size();
      i += sep.size() - 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

// The first quoted string of s (CuTe's text), or empty.
std::string quoted(std::string_view s) {
  const size_t a = s.find('"');
  if (a == std::string_view::npos) return {};
  const size_t b = s.find('"', a + 1);
  return std::string(s.substr(a + 1, b - a - 1));
}

// `name = <"...">` inside a tiled_copy / tiled_mma type.
std::string field(std::string_view s, std::string_view name) {
  const size_t p = s.find(name);
  return p == std::string_view::npos ? std::string() : quoted(s.substr(p));
}

std::string resolve(std::string_view t, const std::map<std::string, std::string>& aliases) {
  const std::string key(trim(t));
  const auto it = aliases.find(key);
  return it == aliases.end() ? key : it->second;
}

// `(%a, %b) : (T1, T2) -> T3`, `(%a) : T1 to T2`, `(%a, %b) : T1, T2`, `(%a, %b) : (T1, T2)` or `: T`.
void read_signature(std::string_view sig, Op& op, const std::map<std::string, std::string>& aliases) {
  std::vector<std::string_view> ins, outs;
  const auto arrow = split_top(sig, "->");
  const auto to = split_top(sig, " to ");
  if (arrow.size() == 2) {
    std::string_view in = arrow[0];
    if (in.size() >= 2 && in.front() == '(' && in.back() == ')') in = in.substr(1, in.size() - 2);
    ins = split_top(in, ",");
    outs = split_top(arrow[1], ",");
  } else if (to.size() == 2) {
    ins = {to[0]};
    outs = {to[1]};
  } else {
    // `(T1, T2, T3)` with no result (`cute.copy`): the parenthesized operand types.
    std::string_view in = trim(sig);
    if (in.size() >= 2 && in.front() == '(' && in.back() == ')' && split_top(in, ",").size() == 1) in = in.substr(1, in.size() - 2);
    ins = split_top(in, ",");
  }
  for (auto t : ins) if (!t.empty()) op.operand_types.push_back(parse_type(t, aliases));
  for (auto t : outs) if (!t.empty()) op.result_types.push_back(parse_type(t, aliases));
}

// One `%r = cute.op(%a, %b) {attrs} : SIG loc(..)` line, or `cute.op(...) : SIG`.
bool read_op(std::string_view line, int n, Module& m) {
  std::string_view s = trim(line);
  Op op;
  op.line = n;
  // cute.* ops, and of the cute_nvgpu dialect the one op a check reads (the TMA partition, §6)
  static constexpr std::string_view kTma = "cute_nvgpu.atom.tma_partition(";
  const size_t tma = s.find(kTma);
  const size_t eq = tma != std::string_view::npos && tma >= 3 ? tma - 3 : s.find(" = cute.");
  if (eq != std::string_view::npos && s.front() == '%' && s.substr(eq, 3) == " = ") {
    for (auto r : split_top(s.substr(0, eq), ",")) op.results.emplace_back(r);
    s = s.substr(eq + 3);
  }
  if (s.substr(0, 5) != "cute." && s.substr(0, kTma.size()) != kTma) return false;
  // NAME [KEYWORD] (OPERANDS) or NAME @SYMBOL (`cute.tiled.mma.partition A (..)`, `cute.kernel_smem_size @k`)
  op.name = std::string(s.substr(0, s.find_first_of(" (<")));  // `cute.append_to_rank<2>(..)`: the name without <..>
  if (s.size() > op.name.size() + 2 && s[op.name.size()] == ' ' && std::isalpha(static_cast<unsigned char>(s[op.name.size() + 1]))) {
    const std::string_view rest = s.substr(op.name.size() + 1);
    op.keyword = std::string(rest.substr(0, rest.find_first_of(" (")));
  }
  const auto pieces = split_top(s, " : ");
  const std::string_view head = pieces[0];
  const size_t open = head.find('('), close = head.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open)
    for (auto a : split_top(head.substr(open + 1, close - open - 1), ","))
      if (!a.empty()) op.operands.emplace_back(a);
  if (pieces.size() >= 2) {
    std::string_view sig = pieces[1];
    const size_t loc = sig.find(" loc(");
    if (loc != std::string_view::npos) op.loc = std::string(trim(sig.substr(loc + 1))), sig = sig.substr(0, loc);
    read_signature(sig, op, m.aliases);
  }
  if (!known_ops().count(op.name) &&
      std::find(m.unknown_ops.begin(), m.unknown_ops.end(), op.name) == m.unknown_ops.end())
    m.unknown_ops.push_back(op.name);
  m.ops.push_back(std::move(op));
  return true;
}

// The atoms whose semantics tfspec reads (spec/CUTE_DSL.md §1): a tiled copy or MMA over another
// atom is listed, its copies or MMA not interpreted, never read as if it were a known one.
void note_atom(const std::string& alias, const std::string& atom, bool mma, Module& m) {
  static const std::set<std::string> copies{"ldsm", "stsm", "simt_async_copy", "universal_copy", "tma_load", "tma_store",
                                            "non_exec_tiled_tma_load", "non_exec_tiled_tma_store"};
  static const std::set<std::string> mmas{"sm80.mma", "sm90.mma", "atom.universal_fma"};
  std::string kind = atom.substr(0, atom.find('<'));
  const std::string prefix = "!cute_nvgpu.";
  if (kind.rfind(prefix, 0) == 0) kind = kind.substr(prefix.size());
  if (!mma && kind.rfind("atom.", 0) == 0) kind = kind.substr(5);
  if ((mma ? mmas : copies).count(kind)) return;
  const std::string entry = atom.substr(0, atom.find('<')) + " (" + alias + ")";
  if (std::find(m.unknown_atoms.begin(), m.unknown_atoms.end(), entry) == m.unknown_atoms.end()) m.unknown_atoms.push_back(entry);
}

void read_alias(std::string_view s, Module& m) {
  const size_t eq = s.find(" = ");
  const std::string name(s.substr(0, eq)), text(trim(s.substr(eq + 3)));
  m.aliases[name] = text;
  if (text.rfind("!cute.tiled_copy<", 0) == 0) {
    const auto parts = split_top(std::string_view(text).substr(17, text.size() - 18), ",");
    m.copies.push_back({name, std::string(parts[0]), field(text, "layout_copy_tv"), field(text, "tiler_mn")});
    note_atom(name, m.copies.back().atom, false, m);
  } else if (text.rfind("!cute.tiled_mma<", 0) == 0) {
    TiledMma t{name, std::string(split_top(std::string_view(text).substr(16), ",")[0]), "", "", "", ""};
    const size_t lt = t.atom.find('<'), comma = t.atom.find(',');
    if (lt != std::string::npos && comma != std::string::npos) t.shape_mnk = t.atom.substr(lt + 1, comma - lt - 1);
    const size_t et = t.atom.find("elem_type = (");
    if (et != std::string::npos) t.elem_types = t.atom.substr(et + 13, t.atom.find(')', et) - et - 13);
    t.atom_layout = field(text, "atom_layout_MNK");
    t.permutation = field(text, "permutation_MNK");
    note_atom(name, t.atom, true, m);
    m.mmas.push_back(t);
  }
}

}  // namespace

Type parse_type(std::string_view text, const std::map<std::string, std::string>& aliases) {
  Type t;
  t.full = resolve(text, aliases);
  const std::string_view f = t.full;
  static const std::pair<const char*, const char*> kinds[] = {
      {"!cute.layout<", "layout"}, {"!cute.composed_layout<", "composed_layout"}, {"!cute.tile<", "tile"},
      {"!cute.shape<", "shape"}, {"!cute.int_tuple<", "int_tuple"}, {"!cute.coord<", "coord"},
      {"!cute.stride<", "stride"}, {"!cute.memref<", "memref"}, {"!cute.tiled_copy<", "tiled_copy"},
      {"!cute.tiled_mma<", "tiled_mma"}};
  t.kind = "other";
  for (const auto& [prefix, kind] : kinds)
    if (f.rfind(prefix, 0) == 0) t.kind = kind;
  if (t.kind == "tiled_copy" || t.kind == "tiled_mma" || t.kind == "other") return t;
  t.text = quoted(f);
  if (t.kind == "memref") {
    const auto parts = split_top(f.substr(13, f.size() - 14), ",");
    if (parts.size() < 3) fail(rule::kCuteDslInput, "cute-dsl (§1): a memref names element, space and layout: " + t.full);
    t.elem = std::string(parts[0]), t.space = std::string(parts[1]);
    for (auto p : parts) {
      if (p.rfind("align<", 0) == 0) t.align = std::stoll(std::string(p.substr(6)));
      if (p.rfind("S<", 0) == 0) t.swizzle = std::string(p);
    }
  }
  return t;
}

Module read_cute_ir(std::string_view text) {
  Module m;
  int n = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    ++n;
    pos = end + 1;
    try {
      if (!line.empty() && line.front() == '!' && line.find(" = ") != std::string_view::npos) read_alias(line, m);
      else if (line.find("cute.") != std::string_view::npos && line.find("cuda.kernel") == std::string_view::npos &&
               line.find("func.func") == std::string_view::npos)
        read_op(line, n, m);
    } catch (const SpecError& e) {
      fail(rule::kCuteDslInput, "line " + std::to_string(n) + ": " + e.what());
    } catch (const std::exception& e) {
      fail(rule::kCuteDslInput, "cute-dsl (§1): line " + std::to_string(n) + " does not read: " + e.what());
    }
    if (end == text.size()) break;
  }
  if (m.ops.empty()) fail(rule::kCuteDslInput, "cute-dsl (§1): no cute.* op found: not a CuTe DSL MLIR dump");
  return m;
}

std::string op_where(const Op& op) { return op.loc.empty() ? "line " + std::to_string(op.line) : op.loc; }

const Op* defining_op(const Module& m, const std::string& value) {
  for (const Op& op : m.ops)
    for (const std::string& r : op.results)
      if (r == value) return &op;
  return nullptr;
}

}  // namespace tfspec::cute_dsl
