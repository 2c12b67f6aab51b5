// The TTGIR reader (spec/TRITON.md §1): one pass for the location aliases (printed after the
// module), one for the encodings, the module's attributes, the kernel's arguments and its ops.
#include <regex>
#include <set>

#include "tfspec/reference/error.hpp"
#include "ttgir_text.hpp"

namespace tfspec::triton {
namespace {

using detail::find_top;
using detail::split_top;
using detail::trim;

using LocDefs = std::map<std::string, std::string>;  // "#loc51" -> the text inside loc(...)

// A location as file:line:col (§1.3): a file location directly, or the first alias a name or fused
// location refers to that resolves to one. A call site `callsite(CALLEE at CALLER)` (an inlined
// function) resolves to its callee where that lies in `home` (the kernel's own file: a helper it
// calls), else to its caller (Triton's library, e.g. the combine of tl.max, points back to the
// kernel's line that calls it). Empty for loc(unknown).
std::string file_of(const std::string& loc) { return loc.substr(0, loc.rfind(':', loc.rfind(':') - 1)); }

std::string resolve_loc(const std::string& text, const LocDefs& defs, const std::string& home = "", int depth = 0) {
  static const std::regex file(R"rx("([^"]*)":(\d+):(\d+))rx"), ref(R"(#loc\d*)");
  std::smatch m;
  if (std::regex_search(text, m, file) && m.position(0) == 0) return m[1].str() + ":" + m[2].str() + ":" + m[3].str();
  if (depth >= 16) return "";
  if (text.starts_with("callsite(") && text.ends_with(")")) {
    const std::string_view inner = std::string_view(text).substr(9, text.size() - 10);
    const size_t at = find_top(inner, " at ");
    if (at != std::string_view::npos) {
      const std::string callee = resolve_loc(std::string(inner.substr(0, at)), defs, home, depth + 1);
      if (!callee.empty() && (home.empty() || file_of(callee) == home)) return callee;
      const std::string caller = resolve_loc(std::string(inner.substr(at + 4)), defs, home, depth + 1);
      return caller.empty() ? callee : caller;
    }
  }
  for (std::sregex_iterator it(text.begin(), text.end(), ref), end; it != end; ++it) {
    auto d = defs.find(it->str());
    if (d == defs.end()) continue;
    const std::string r = resolve_loc(d->second, defs, home, depth + 1);
    if (!r.empty()) return r;
  }
  if (std::regex_search(text, m, file)) return m[1].str() + ":" + m[2].str() + ":" + m[3].str();
  return "";
}

// "loc(...)" at the end of s: its inside, and s without it.
std::string take_loc(std::string_view& s) {
  const size_t at = s.rfind(" loc(");
  if (at == std::string_view::npos || !s.ends_with(")")) return "";
  std::string inside(s.substr(at + 5, s.size() - at - 6));
  s = s.substr(0, at);  // the leading space stays: " : TYPES" is found by it
  return inside;
}

void read_module_attributes(std::string_view line, Module& m) {
  static const std::regex attr(R"rx("?(ttg\.[a-z-]+)"?\s*=\s*(?:(\d+)|"([^"]*)"))rx");
  const std::string s(line);
  for (std::sregex_iterator it(s.begin(), s.end(), attr), end; it != end; ++it) {
    const std::string key = (*it)[1];
    if (key == "ttg.num-warps") m.num_warps = std::stoll((*it)[2]);
    else if (key == "ttg.threads-per-warp") m.threads_per_warp = std::stoll((*it)[2]);
    else if (key == "ttg.num-ctas") m.num_ctas = std::stoll((*it)[2]);
    else if (key == "ttg.target") m.target = (*it)[3];
  }
}

void read_function(std::string_view line, int n, Module& m, const LocDefs&) {
  static const std::regex name(R"(@([\w$.]+)\()"), div(R"(tt\.divisibility\s*=\s*(\d+))");
  const std::string s(line);
  std::smatch sm;
  if (std::regex_search(s, sm, name)) m.kernel = sm[1];
  const size_t open = line.find('(');
  const size_t inner = open == std::string_view::npos ? open : find_top(line.substr(open + 1), ")");
  const size_t close = inner == std::string_view::npos ? inner : open + 1 + inner;
  if (open == std::string_view::npos || close == std::string_view::npos) fail(rule::kTritonInput, "TTGIR line " + std::to_string(n) + " (§1): tt.func without its argument list");
  for (std::string_view a : split_top(line.substr(open + 1, close - open - 1), ",")) {
    if (!a.starts_with("%")) continue;
    Argument arg;
    const size_t colon = a.find(':');
    arg.name = std::string(trim(a.substr(1, colon - 1)));
    std::string_view rest = trim(a.substr(colon + 1));
    take_loc(rest);
    const size_t brace = find_top(rest, "{");
    const std::string attrs(brace == std::string_view::npos ? "" : rest.substr(brace));
    arg.type = detail::parse_type(rest.substr(0, brace), m.aliases, n);
    if (std::regex_search(attrs, sm, div)) arg.divisibility = std::stoll(sm[1]);
    m.args.push_back(std::move(arg));
  }
}

void read_types(std::string_view types, Op& op, const Module& m) {
  std::vector<std::string_view> sides = split_top(types, "->");
  if (sides.size() == 1) sides = split_top(types, " to ");  // arith casts: `: tensor<A> to tensor<B>`
  for (size_t side = 0; side < sides.size() && side < 2; ++side) {
    std::string_view s = sides[side];
    if (s.starts_with("(") && s.ends_with(")")) s = s.substr(1, s.size() - 2);
    for (std::string_view piece : split_top(s, ","))
      for (std::string_view t : split_top(piece, " * "))
        if (!t.empty()) (side == 0 && sides.size() > 1 ? op.in_types : sides.size() > 1 ? op.out_types : op.in_types).push_back(detail::parse_type(t, m.aliases, op.line));
  }
}

std::optional<Op> read_op(std::string_view line, int n, const Module& m, const LocDefs& defs, std::string& raw_loc) {
  static const std::regex operand(R"(%([\w#]+))"), int_attr(R"((\w+)\s*=\s*(-?\d+)\s*:\s*i\d+)");
  Op op;
  op.line = n;
  if (line.starts_with("%")) {
    const size_t eq = line.find(" = ");
    if (eq == std::string_view::npos) return std::nullopt;
    for (std::string_view r : split_top(line.substr(0, eq), ",")) op.results.emplace_back(r.substr(1, r.find(':') - 1));
    line = trim(line.substr(eq + 3));
  }
  const bool generic = line.starts_with("\"");  // `"tt.reduce"(%x) <{axis = 1 : i32}> ({`: the name quoted
  const size_t q = generic ? line.find('"', 1) : std::string_view::npos;
  if (generic && q == std::string_view::npos) return std::nullopt;
  const size_t sp = generic ? q + 1 : line.find_first_of(" ({");
  op.name = std::string(generic ? line.substr(1, q - 1) : line.substr(0, sp));
  if (op.name.find('.') == std::string::npos) return std::nullopt;
  std::string_view rest = sp == std::string_view::npos ? "" : line.substr(sp);
  raw_loc = take_loc(rest);
  op.loc = resolve_loc(raw_loc, defs);
  const size_t colon = find_top(rest, " : ");
  const std::string head(rest.substr(0, colon));
  for (std::sregex_iterator it(head.begin(), head.end(), operand), end; it != end; ++it) op.operands.push_back((*it)[1]);
  static const std::regex predicate(R"(^\s*([a-z]+)\s*,)");
  std::smatch pm;
  if (op.name == "arith.cmpi" && std::regex_search(head, pm, predicate)) op.predicate = pm[1];
  for (std::sregex_iterator it(head.begin(), head.end(), int_attr), end; it != end; ++it) op.attrs[(*it)[1]] = std::stoll((*it)[2]);
  static const std::regex subslice(R"(\[\s*(\d+(?:\s*,\s*\d+)*)\s*\])");
  std::smatch sm;
  if (op.name == "ttg.memdesc_subslice" && std::regex_search(head, sm, subslice))
    for (std::string_view v : split_top(std::string_view(sm[1].first, sm[1].second), ",")) op.offsets.push_back(std::stoll(std::string(trim(v))));
  static const std::regex constant(R"(^\s*(?:dense<)?(-?\d+)>?\s*$)");
  std::smatch cm;
  if (op.name == "arith.constant" && std::regex_match(head, cm, constant)) op.attrs["value"] = std::stoll(cm[1]);
  if (colon != std::string_view::npos && !op.name.starts_with("scf.")) {
    std::string_view types = trim(rest.substr(colon + 3));
    if (types.ends_with("{")) types = trim(types.substr(0, types.size() - 1));
    if (op.name.starts_with("tt.") || op.name.starts_with("ttg.") || op.name.starts_with("ttng.")) {
      read_types(types, op, m);
    } else {
      try {  // another dialect's op: its types serve the dataflow facts only (§3.4); unreadable ones are none
        read_types(types, op, m);
      } catch (const SpecError&) {
        op.in_types.clear(), op.out_types.clear();
      }
    }
  }
  return op;
}

// The line closing an op's regions: its end, and for an op printed in generic form (`"tt.reduce"(%x)
// <{axis = 1 : i32}> ({ ... }) : (TYPES) -> TYPES loc(...)`) the types and location it gives last.
void close_regions(std::string_view l, int n, Op& op, const Module& m, const LocDefs& defs, std::string& raw_loc) {
  op.end_line = n;
  if (!l.starts_with("})") || !op.in_types.empty()) return;
  std::string_view rest = l.substr(2);
  const std::string raw = take_loc(rest);
  if (op.loc.empty()) op.loc = resolve_loc(raw, defs), raw_loc = raw;
  const size_t colon = find_top(rest, " : ");
  if (colon != std::string_view::npos) read_types(trim(rest.substr(colon + 3)), op, m);
}

LocDefs read_loc_defs(const std::vector<std::string_view>& lines) {
  LocDefs defs;
  for (std::string_view l : lines)
    if (l.starts_with("#loc") && l.find(" = loc(") != std::string_view::npos && l.ends_with(")")) {
      const size_t eq = l.find(" = loc(");
      defs[std::string(l.substr(0, eq))] = std::string(l.substr(eq + 7, l.size() - eq - 8));
    }
  return defs;
}

void read_alias(std::string_view l, int n, Module& m) {
  const size_t eq = l.find(" = ");
  const std::string name(trim(l.substr(1, eq - 1)));
  auto enc = parse_encoding(trim(l.substr(eq + 3)), m.aliases);
  m.aliases[name] = enc;
  m.alias_order.push_back(name);
  if (enc->kind != "shared_memory" && !derivable(*enc)) m.unknown.push_back("line " + std::to_string(n) + ": #" + name + " = #ttg." + enc->kind + " (encoding not derived)");
}

}  // namespace

bool known_op(std::string_view name) {
  static const std::set<std::string_view> known = {
      "tt.func", "tt.return", "tt.get_program_id", "tt.make_range", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.addptr",
      "tt.load", "tt.store", "tt.dot", "tt.reduce", "tt.reduce.return", "tt.scan", "tt.scan.return", "ttg.local_alloc", "ttg.local_load", "ttg.local_store",
      "ttg.local_dealloc", "ttg.async_copy_global_to_local", "ttg.async_commit_group", "ttg.async_wait", "ttg.convert_layout",
      "ttg.memdesc_index", "ttg.memdesc_subslice", "ttng.warp_group_dot", "ttng.warp_group_dot_wait", "ttng.fence_async_shared"};
  return known.count(name) > 0;
}

Module read_ttgir(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(trim(text.substr(start, end - start)));
    start = end + 1;
  }
  const LocDefs defs = read_loc_defs(lines);
  Module m;
  std::vector<std::string> raw_locs;  // each op's loc(...) as written, resolved again once the kernel's file is known
  std::vector<std::ptrdiff_t> open;  // the ops whose regions are open (-1: a line that is no op)
  size_t func_depth = 0;              // open.size() inside the tt.func
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    const int n = static_cast<int>(i + 1);
    try {  // a line the reader cannot take apart is an input error naming it, never an internal one
    if (l.starts_with("}") && !l.ends_with("{") && !open.empty()) {  // `} else {` continues the op's regions
      if (open.back() >= 0) close_regions(l, n, m.ops[static_cast<size_t>(open.back())], m, defs, raw_locs[static_cast<size_t>(open.back())]);
      open.pop_back();
      if (open.size() + 1 == func_depth && m.loc.empty()) {  // the tt.func's closing `} loc(...)`: the kernel's location
        std::string_view rest = l;
        m.loc = resolve_loc(take_loc(rest), defs);
      }
    }
    const bool opens = l.ends_with("{") && !l.starts_with("}") && !l.starts_with("//");
    if (l.empty() || l.starts_with("//") || l.starts_with("}") || l.starts_with("#loc")) continue;
    bool pushed = !opens;
    if (l.starts_with("#")) read_alias(l, n, m);
    else if (l.starts_with("module attributes")) read_module_attributes(l, m);
    else if (l.starts_with("tt.func")) read_function(l, n, m, defs);
    else if (std::string raw; auto op = read_op(l, n, m, defs, raw)) {
      const std::string& d = op->name;
      if ((d.starts_with("tt.") || d.starts_with("ttg.") || d.starts_with("ttng.")) && !known_op(d))
        m.unknown.push_back("line " + std::to_string(n) + ": " + d + " (op not read)");
      op->end_line = n;
      m.ops.push_back(std::move(*op));
      raw_locs.push_back(raw);
      if (opens) open.push_back(static_cast<std::ptrdiff_t>(m.ops.size() - 1)), pushed = true;
    }
    if (!pushed) open.push_back(-1);
    if (l.starts_with("tt.func") && opens) func_depth = open.size();
    } catch (const SpecError&) {
      throw;
    } catch (const std::exception& e) {
      fail(rule::kTritonInput, "triton (§1): line " + std::to_string(n) + " does not read: " + e.what());
    }
  }
  if (!m.loc.empty())  // §1.3: call sites resolved toward the kernel's own file
    for (size_t i = 0; i < m.ops.size(); ++i) m.ops[i].loc = resolve_loc(raw_locs[i], defs, file_of(m.loc));
  if (m.num_warps == 0)
    fail(rule::kTritonInput, "TTGIR (§1): no `module attributes {... \"ttg.num-warps\" = N ...}` line: is this the ttgir stage (compiled.asm[\"ttgir\"])?");
  return m;
}

}  // namespace tfspec::triton
