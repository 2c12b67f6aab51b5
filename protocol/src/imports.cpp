// JAX / DTensor shardings as ShardLayouts and back (spec/SHARD.md, "Owners and imports (extension)", I2-I7).
//
// Each logical dim is a row-major list of factors; a factor is bound to the mesh axis that splits
// it or free. A library's split cuts the dim's *local* extent (the product of its free factors,
// in order) into `n` even pieces, optionally after `sf` outer pieces (_StridedShard): the free
// factors are refined at the two cuts, and the run between them must be one factor, which the
// mesh axis then Splits (§6). The flat list of factors is G (§7.1.1); it refines T.shape
// row-major by construction (D2).
#include "tfspec/protocol/imports.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::protocol {
namespace {

// ---- the Python literals the libraries print: strings, None, ints, names, calls, tuples, lists, sets
struct PyKwarg;
struct PyVal {
  enum Kind { Str, NoneV, Int, Name, Call, Tuple, List, Set } kind = NoneV;
  std::string text;  // Str: the value; Name: the dotted name; Call: the callee
  int64_t num = 0;
  std::vector<PyVal> items;  // Tuple / List / Set elements, Call's positional arguments
  std::vector<PyKwarg> kwargs;  // Call's keyword arguments (a struct, not a pair: PyVal is incomplete here)
};
struct PyKwarg {
  std::string key;
  PyVal value;
};
PyVal of(PyVal::Kind k) {
  PyVal v;
  v.kind = k;
  return v;
}

class PyParser {
 public:
  explicit PyParser(std::string_view s) : s_(s) {}
  // A comma-separated sequence without brackets (a bracketed one is a single List / Tuple).
  std::vector<PyVal> sequence() {
    std::vector<PyVal> out;
    skip();
    while (i_ < s_.size()) {
      out.push_back(value(0));
      skip();
      if (i_ < s_.size() && !eat(',')) bad("expected ',' at offset " + std::to_string(i_));
      skip();
    }
    return out;
  }

 private:
  [[noreturn]] void bad(const std::string& why) { fail(rule::kImportText, why + " in '" + std::string(s_.substr(0, 200)) + "'"); }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

  PyVal value(int depth) {
    if (depth > 16) fail(rule::kNestingTooDeep, "a sharding nests at most 16 deep");
    skip();
    if (i_ >= s_.size()) bad("unexpected end");
    const char c = s_[i_];
    if (c == '"' || c == '\'') return string();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') return integer();
    if (c == '(' || c == '[' || c == '{') return bracketed(depth);
    if (!ident_char(c)) bad(std::string("unexpected '") + c + "'");
    PyVal v;
    while (i_ < s_.size() && ident_char(s_[i_])) v.text += s_[i_++];
    if (v.text == "None") return PyVal{};
    v.kind = PyVal::Name;
    if (!eat('(')) return v;
    v.kind = PyVal::Call;
    while (!eat(')')) {
      size_t save = i_;
      std::string key;
      skip();
      while (i_ < s_.size() && ident_char(s_[i_])) key += s_[i_++];
      if (!key.empty() && eat('=')) v.kwargs.push_back({key, value(depth + 1)});
      else (i_ = save, v.items.push_back(value(depth + 1)));
      if (!eat(',') && !(skip(), i_ < s_.size() && s_[i_] == ')')) bad("expected ',' or ')'");
    }
    return v;
  }
  PyVal string() {
    const char q = s_[i_++];
    PyVal v = of(PyVal::Str);
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      v.text += s_[i_++];
    }
    if (i_ >= s_.size()) bad("unterminated string");
    ++i_;
    return v;
  }
  PyVal integer() {
    PyVal v = of(PyVal::Int);
    size_t start = i_;
    if (s_[i_] == '-') ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    auto [p, ec] = std::from_chars(s_.data() + start, s_.data() + i_, v.num);
    if (ec != std::errc() || p != s_.data() + i_) bad("not an int64: '" + std::string(s_.substr(start, i_ - start)) + "'");
    return v;
  }
  PyVal bracketed(int depth) {
    const char open = s_[i_++], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    PyVal v = of(open == '(' ? PyVal::Tuple : open == '[' ? PyVal::List : PyVal::Set);
    bool trailing_comma = false;
    while (!eat(close)) {
      v.items.push_back(value(depth + 1));
      trailing_comma = eat(',');
      if (!trailing_comma && !(skip(), i_ < s_.size() && s_[i_] == close)) bad(std::string("expected ',' or '") + close + "'");
    }
    if (open == '(' && v.items.size() == 1 && !trailing_comma) return v.items[0];  // (x) is x, as in Python
    return v;
  }

  std::string_view s_;
  size_t i_ = 0;
};

std::string last_component(const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// ---- the factor model
struct Factor {
  int64_t extent;
  int axis;  // the mesh axis that Splits it, -1 when free
};
using Dim = std::vector<Factor>;

int64_t free_extent(const Dim& d) {
  int64_t n = 1;
  for (const auto& f : d)
    if (f.axis < 0) n = checked_mul(n, f.extent);
  return n;
}

void merge_adjacent_free(Dim& d) {
  Dim out;
  for (const auto& f : d) {
    if (f.axis < 0 && !out.empty() && out.back().axis < 0) out.back().extent = checked_mul(out.back().extent, f.extent);
    else out.push_back(f);
  }
  d = std::move(out);
}

// Makes `cut` (a product of leading free extents) fall between two free factors.
void refine_at(Dim& d, int64_t cut, const std::string& what) {
  int64_t before = 1;
  for (size_t j = 0; j < d.size(); ++j) {
    if (d[j].axis >= 0) continue;
    if (before == cut) return;
    const int64_t after = checked_mul(before, d[j].extent);
    if (cut < after) {
      if (cut % before != 0 || d[j].extent % (cut / before) != 0)
        fail(rule::kImportNotExpressible, what + ": its pieces straddle another mesh axis's split, which no Split of one layout dim expresses (§6)");
      const int64_t r = cut / before;
      d[j].extent /= r;
      d.insert(d.begin() + static_cast<std::ptrdiff_t>(j), Factor{r, -1});
      return;
    }
    before = after;
  }
}

// Mesh axis `axis` (extent n) cuts the dim's local extent into `outer` x n x rest and keeps the
// middle piece (outer = 1: Shard / a JAX axis; outer = split_factor: _StridedShard).
void split(Dim& d, int64_t outer, int64_t n, int axis, const std::string& what) {
  const int64_t local = free_extent(d);
  if (local % checked_mul(outer, n) != 0)
    fail(rule::kImportUneven, what + ": the local extent " + std::to_string(local) + " is not a multiple of " +
                                  (outer > 1 ? std::to_string(outer) + " x " : "") + std::to_string(n) +
                                  "; an uneven shard (torch.chunk's short or empty trailing chunks, JAX's padding) is not a Split (§6, D8)");
  merge_adjacent_free(d);
  refine_at(d, outer, what);
  refine_at(d, checked_mul(outer, n), what);
  std::vector<size_t> run;  // the free factors between the two cuts
  size_t insert_at = d.size();
  int64_t before = 1;
  for (size_t j = 0; j < d.size(); ++j) {
    if (d[j].axis >= 0) continue;
    if (before >= outer && insert_at == d.size()) insert_at = j;
    if (before >= outer && before < checked_mul(outer, n)) run.push_back(j);
    before = checked_mul(before, d[j].extent);
  }
  if (n == 1) {
    d.insert(d.begin() + static_cast<std::ptrdiff_t>(insert_at), Factor{1, axis});
    return;
  }
  if (run.empty()) fail(rule::in(rule::kInternal, "§6"), what + ": no factor between the cuts (a tfspec bug)");
  if (run.back() - run.front() + 1 != run.size())
    fail(rule::kImportNotExpressible, what + ": its piece spans free factors that another mesh axis's split separates (§6)");
  d[run.front()] = Factor{n, axis};
  d.erase(d.begin() + static_cast<std::ptrdiff_t>(run.front()) + 1, d.begin() + static_cast<std::ptrdiff_t>(run.back()) + 1);
}

// G from the dims (a free size-1 factor dropped where its dim keeps another), per-instance strides
// (D4: 0 on Split dims, C order over the local shape: each device holds its shard as its own array).
ShardLayout build(const std::vector<Dim>& dims, std::vector<ShardAttr> attrs, const Mesh& mesh) {
  std::vector<Factor> flat;
  for (Dim d : dims) {
    merge_adjacent_free(d);
    if (d.size() > 1) std::erase_if(d, [](const Factor& f) { return f.axis < 0 && f.extent == 1; });
    flat.insert(flat.end(), d.begin(), d.end());
  }
  std::vector<IntTuple> shape(flat.size()), stride(flat.size());
  int64_t step = 1;
  for (size_t k = flat.size(); k-- > 0;) {
    shape[k] = IntTuple(flat[k].extent);
    stride[k] = IntTuple(flat[k].axis >= 0 ? 0 : step);
    if (flat[k].axis < 0) step = checked_mul(step, flat[k].extent);
    if (flat[k].axis >= 0) attrs[flat[k].axis] = Split{static_cast<int64_t>(k)};
  }
  auto layout = std::make_shared<Layout>(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
  return ShardLayout(layout, std::move(attrs), mesh);
}

std::vector<Dim> initial_dims(const std::vector<int64_t>& shape) {
  std::vector<Dim> dims;
  for (int64_t e : shape) {
    if (e == 0)  // I7: JAX shards an empty array (every device holds an empty shard); no ShardLayout does
      fail(rule::kExtentPositive, "an empty array (extent 0) has no ShardLayout: every layout extent is >= 1, so size(G) = size(T.shape) = 0 "
                                  "cannot hold (§1, §7.1.1); JAX shards it, tfspec refuses it (spec/SHARD.md I7)");
    if (e < 1) fail(rule::kExtentPositive, "a tensor extent is >= 1; got " + std::to_string(e));
    dims.push_back({Factor{e, -1}});
  }
  return dims;
}

int axis_index(const Mesh& mesh, const std::string& name) {
  if (mesh.names())
    for (int a = 0; a < mesh.rank(); ++a)
      if ((*mesh.names())[a] == name) return a;
  fail(rule::kMeshAxisUnknown, "the mesh has no axis '" + name + "' (it has " + to_string(mesh) + ")");
}

// The device order as a mesh layout: devices[c] == offset + sum(c[a] * stride[a]) for every
// coordinate c, or refused (§5: a mesh layout is a Layout, or a slice None o OFFSET o Layout).
LayoutPtr affine_order(const std::vector<int64_t>& extents, const std::vector<int64_t>& devices) {
  const IntTuple def = row_major_strides(extents);
  std::vector<int64_t> stride(extents.size());
  std::vector<int64_t> unit(extents.size(), 0);
  for (size_t a = 0; a < extents.size(); ++a) {
    stride[a] = flat_leaves(def)[a].value();
    if (extents[a] < 2) continue;
    unit[a] = 1;
    stride[a] = devices[row_major_index(unit, extents)] - devices[0];
    unit[a] = 0;
  }
  const auto coords = row_major_coords(extents);
  for (size_t i = 0; i < coords.size(); ++i) {
    int64_t d = devices[0];
    for (size_t a = 0; a < extents.size(); ++a) d += coords[i][a] * stride[a];
    if (d != devices[i])
      fail(rule::kImportDeviceOrder, "device " + std::to_string(devices[i]) + " at mesh coordinate " +
                                         to_string(IntTuple::tuple(std::vector<IntTuple>(coords[i].begin(), coords[i].end()))) +
                                         " is not an affine function of the coordinate (the unit steps from the origin predict " +
                                         std::to_string(d) + "); a tfspec mesh layout is a Layout (§5)");
  }
  std::vector<IntTuple> s(stride.begin(), stride.end()), e(extents.begin(), extents.end());
  auto plain = std::make_shared<Layout>(IntTuple::tuple(e), IntTuple::tuple(s));
  if (devices[0] == 0) return plain;
  return std::make_shared<ComposedLayout>(nullptr, devices[0], plain);
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::vector<std::string> axis_names(const Mesh& mesh, bool generate) {
  std::vector<std::string> out;
  for (int a = 0; a < mesh.rank(); ++a) out.push_back(mesh.names() ? (*mesh.names())[a] : generate ? "a" + std::to_string(a) : "");
  return out;
}

// Per logical dim, the G dims it regroups into as (extent, Split axis or -1); size-1 dims dropped.
std::vector<Dim> dims_of(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  ShardCheckOptions opts;
  opts.tensor_shape = IntTuple::tuple(std::vector<IntTuple>(shape.begin(), shape.end()));
  validate_shard_layout(sl, opts);
  const auto g = flat_extents(sl);
  const auto bind = split_binding(sl);
  std::vector<Dim> dims;
  for (const auto& run : regroup(*opts.tensor_shape, sl.shape())) {
    Dim d;
    for (int k : run)
      if (g[k] > 1 || bind[k]) d.push_back(Factor{g[k], bind[k] ? *bind[k] : -1});
    dims.push_back(std::move(d));
  }
  return dims;
}

// The mesh axes that split one logical dim, outermost first; refused unless they are its leading
// factors (both libraries split a dim into contiguous blocks, the remainder innermost).
std::vector<int> leading_axes(const Dim& d, size_t dim, const char* library) {
  std::vector<int> axes;
  bool free_seen = false;
  for (const auto& f : d) {
    if (f.axis >= 0 && free_seen && f.extent > 1)
      fail(rule::kImportNotExpressible, std::string(library) + " splits a dim into contiguous blocks: dim " + std::to_string(dim) +
                                            " has a free factor outside its mesh axis " + std::to_string(f.axis) + "'s split (§6)");
    if (f.axis >= 0) axes.push_back(f.axis);
    free_seen |= f.axis < 0 && f.extent > 1;
  }
  return axes;
}

Exported exported_mesh(const ShardLayout& sl, bool generate_names) {
  Exported out;
  const Mesh& m = sl.mesh();
  const auto names = axis_names(m, generate_names);
  for (int a = 0; a < m.rank(); ++a) out.mesh += (a ? "," : "") + (names[a].empty() ? "" : names[a] + "=") + std::to_string(m.extent(a));
  std::vector<int64_t> ext;
  for (int a = 0; a < m.rank(); ++a) ext.push_back(m.extent(a));
  for (const auto& c : row_major_coords(ext)) out.devices.push_back(m.device_of(c));
  return out;
}

}  // namespace

Mesh import_mesh(std::string_view axes, const std::vector<int64_t>& devices, bool names_required) {
  if (axes.find('|') != std::string_view::npos)
    fail(rule::kImportText, "a library's mesh is its axes only (`x=2,y=4`); the device order goes in the devices argument; got '" +
                                std::string(axes.substr(0, 200)) + "'");
  Mesh m = parse_mesh(axes);
  if (names_required && !m.names()) fail(rule::kImportText, "a JAX mesh names every axis (`x=2,y=4`); got '" + std::string(axes.substr(0, 200)) + "'");
  const int64_t n = m.size();
  if (devices.empty()) return m;
  if (static_cast<int64_t>(devices.size()) != n)
    fail(rule::kImportText, std::to_string(devices.size()) + " device ids for a mesh of " + std::to_string(n) + " devices");
  std::vector<int64_t> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    fail(rule::kImportDeviceOrder, "the device ids are distinct and >= 0 (a mesh maps its coordinates one-to-one onto devices, §5)");
  std::vector<int64_t> ext;
  for (int a = 0; a < m.rank(); ++a) ext.push_back(m.extent(a));
  LayoutPtr order = affine_order(ext, devices);
  if (sorted.back() == n - 1) return Mesh(m.topologies(), order, m.names());
  // I2: a sub-mesh (JAX's Mesh over devices 4..7 of 8): a slice of the smallest device domain that
  // holds the ids, device(max id + 1); the mesh layout is None o OFFSET o Layout (§5's slice form).
  if (order->kind() == LayoutKind::Layout) order = std::make_shared<ComposedLayout>(nullptr, 0, order);
  return Mesh({Topology{m.topologies().front().name, checked_add(sorted.back(), 1)}}, order, m.names());
}

ShardLayout import_jax(const Mesh& mesh, std::string_view spec, const std::vector<int64_t>& shape) {
  auto top = PyParser(spec).sequence();
  if (top.size() != 1 || top[0].kind != PyVal::Call || (last_component(top[0].text) != "P" && last_component(top[0].text) != "PartitionSpec"))
    fail(rule::kImportText, "a PartitionSpec is written P(...) or PartitionSpec(...); got '" + std::string(spec.substr(0, 200)) + "'");
  const PyVal& p = top[0];
  if (p.items.size() > shape.size())
    fail(rule::kImportDim, "the PartitionSpec has " + std::to_string(p.items.size()) + " entries for a rank-" + std::to_string(shape.size()) + " array");
  std::vector<Dim> dims = initial_dims(shape);
  std::vector<ShardAttr> attrs(mesh.rank(), Broadcast{});
  std::set<int> used;
  auto use = [&](const PyVal& v) {
    if (v.kind != PyVal::Str) fail(rule::kImportText, "a mesh axis is a quoted name");
    int a = axis_index(mesh, v.text);
    if (!used.insert(a).second) fail(rule::kImportAxisReused, "mesh axis '" + v.text + "' appears twice in the PartitionSpec");
    return a;
  };
  bool unconstrained = false;
  for (size_t i = 0; i < p.items.size(); ++i) {
    const PyVal& e = p.items[i];
    if (e.kind == PyVal::Name && last_component(e.text) == "UNCONSTRAINED") unconstrained = true;
    else if (e.kind == PyVal::Str || e.kind == PyVal::Tuple || e.kind == PyVal::List)
      for (const auto& ax : e.kind == PyVal::Str ? std::vector<PyVal>{e} : e.items) {
        int a = use(ax);
        split(dims[i], 1, mesh.extent(a), a, "dim " + std::to_string(i) + " on " + quoted(ax.text));
      }
    else if (e.kind != PyVal::NoneV) fail(rule::kImportText, "a PartitionSpec entry is None, an axis name, a tuple of them or P.UNCONSTRAINED");
  }
  for (const auto& [key, v] : p.kwargs) {
    if (key != "unreduced" || (v.kind != PyVal::Set && v.kind != PyVal::Tuple && v.kind != PyVal::List))
      fail(rule::kImportText, "P(...) takes the keyword unreduced={...} only (an unreduced axis is Partial(sum), §6)");
    for (const auto& ax : v.items) attrs[use(ax)] = Partial{"sum"};
  }
  if (unconstrained)  // XLA may still split the unconstrained dims on any axis left: not decided (§6 Dynamic)
    for (int a = 0; a < mesh.rank(); ++a)
      if (!used.count(a)) attrs[a] = Dynamic{};
  return build(dims, std::move(attrs), mesh);
}

namespace {

// Argument `key` of a call, by keyword (or its `alias`: torch 2.15 prints _StridedShard's
// split_factor as `sf=`) or at position `pos`.
int64_t int_arg(const PyVal& call, size_t pos, const char* key, std::optional<int64_t> dflt, const char* alias = nullptr) {
  for (const auto& [k, v] : call.kwargs)
    if (k == key || (alias && k == alias)) {
      if (v.kind != PyVal::Int) fail(rule::kImportText, call.text + "'s " + key + " is an int");
      return v.num;
    }
  if (pos < call.items.size()) {
    if (call.items[pos].kind != PyVal::Int) fail(rule::kImportText, call.text + "'s " + key + " is an int");
    return call.items[pos].num;
  }
  if (!dflt) fail(rule::kImportText, call.text + " needs its " + key);
  return *dflt;
}

// DTensor's Partial(reduce_op): the spec's Partial has sum, max and min (D9); "avg", "product"
// and the rest have none, and are refused rather than approximated.
Partial dtensor_partial(const PyVal& call) {
  std::string op = "sum";
  for (const auto& [k, v] : call.kwargs)
    if (k == "reduce_op") op = v.text;
  if (!call.items.empty()) op = call.items[0].text;
  op = last_component(op);  // a name such as ReduceOp.SUM reads as its last part, lower case
  std::transform(op.begin(), op.end(), op.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* known : {"sum", "max", "min"})
    if (op == known) return Partial{op};
  fail(rule::kImportPartialReduction, "Partial('" + op + "') has no spec Partial: the reductions are sum, max and min (§6, D9)");
}

// I4: DTensor refuses Partial placements with different reduce ops on one tensor, and so does
// the import: the spec's attrs carry no order in which the axes are reduced, and a max of sums is
// not a sum of maxes, so the held values would have no single meaning.
void same_partial_reduction(const std::vector<ShardAttr>& attrs, int a) {
  const auto& mine = std::get<Partial>(attrs[a]).reduction;
  for (int b = 0; b < a; ++b)
    if (const auto* other = std::get_if<Partial>(&attrs[b]); other && other->reduction != mine)
      fail(rule::kImportPartialReduction, "mesh dims " + std::to_string(b) + " and " + std::to_string(a) + " are Partial('" + other->reduction +
                                              "') and Partial('" + mine + "'): DTensor's Partial placements share one reduce op, since the " +
                                              "reductions over different axes do not commute (§6, I4)");
}

}  // namespace

ShardLayout import_dtensor(const Mesh& mesh, std::string_view placements, const std::vector<int64_t>& shape) {
  std::vector<PyVal> items = PyParser(placements).sequence();
  // `[Shard(0), Replicate()]` and torch's printed `(Shard(dim=0),)` are the placements inside
  // their brackets. The inner vector is moved out of its element before `items` is replaced (an
  // assignment from items[0].items would read the element while it is being destroyed).
  if (items.size() == 1 && (items[0].kind == PyVal::List || items[0].kind == PyVal::Tuple)) {
    std::vector<PyVal> inner = std::move(items[0].items);
    items = std::move(inner);
  }
  if (static_cast<int>(items.size()) != mesh.rank())
    fail(rule::kShardAttrsRank, std::to_string(items.size()) + " placements for a rank-" + std::to_string(mesh.rank()) + " DeviceMesh: one per mesh dim");
  std::vector<Dim> dims = initial_dims(shape);
  std::vector<ShardAttr> attrs(mesh.rank(), Broadcast{});
  const auto rank = static_cast<int64_t>(shape.size());
  // Mesh dims are applied in order: each Shard cuts the local tensor the earlier ones left.
  for (int a = 0; a < mesh.rank(); ++a) {
    const PyVal& p = items[a];
    const std::string kind = p.kind == PyVal::Call ? last_component(p.text) : "";
    if (kind == "Replicate") continue;
    if (kind == "Partial") {
      attrs[a] = dtensor_partial(p);
      same_partial_reduction(attrs, a);
      continue;
    }
    if (kind != "Shard" && kind != "_StridedShard")
      fail(rule::kImportText, "a placement is Shard(d), _StridedShard(d, split_factor=k), Replicate() or Partial(op); mesh dim " +
                                  std::to_string(a) + " has something else");
    int64_t d = int_arg(p, 0, "dim", std::nullopt);
    if (d < -rank || d >= rank) fail(rule::kImportDim, kind + "(" + std::to_string(d) + ") on a rank-" + std::to_string(rank) + " tensor");
    if (d < 0) d += rank;
    int64_t sf = kind == "Shard" ? 1 : int_arg(p, 1, "split_factor", std::nullopt, "sf");
    if (sf < 1) fail(rule::kImportText, "_StridedShard's split_factor is >= 1");
    if (mesh.extent(a) == 1) sf = 1;  // one rank takes every piece, in order: the whole local tensor
    split(dims[d], sf, mesh.extent(a), a, kind + "(" + std::to_string(d) + ") on mesh dim " + std::to_string(a));
  }
  return build(dims, std::move(attrs), mesh);
}

Exported export_jax(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  Exported out = exported_mesh(sl, true);
  const auto names = axis_names(sl.mesh(), true);
  const auto dims = dims_of(sl, shape);
  std::string spec, unreduced;
  for (size_t i = 0; i < dims.size(); ++i) {
    auto axes = leading_axes(dims[i], i, "JAX");
    std::string e = axes.empty() ? "None" : axes.size() == 1 ? quoted(names[axes[0]]) : "(";
    for (size_t j = 0; axes.size() > 1 && j < axes.size(); ++j) e += (j ? ", " : "") + quoted(names[axes[j]]);
    spec += (i ? ", " : "") + e + (axes.size() > 1 ? ")" : "");
  }
  for (int a = 0; a < sl.mesh().rank(); ++a) {
    if (std::holds_alternative<Dynamic>(sl.attrs()[a])) fail(rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is Dynamic");
    if (const auto* p = std::get_if<Partial>(&sl.attrs()[a])) {
      if (p->reduction != "sum") fail(rule::kImportNotExpressible, "JAX's unreduced axes are sums; mesh axis " + std::to_string(a) + " is Partial('" + p->reduction + "')");
      unreduced += (unreduced.empty() ? "" : ", ") + quoted(names[a]);
    }
  }
  if (!unreduced.empty()) spec += std::string(spec.empty() ? "" : ", ") + "unreduced={" + unreduced + "}";
  out.sharding = "P(" + spec + ")";
  return out;
}

Exported export_dtensor(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  Exported out = exported_mesh(sl, false);
  const auto dims = dims_of(sl, shape);
  std::vector<std::string> placement(sl.mesh().rank(), "Replicate()");
  for (size_t i = 0; i < dims.size(); ++i) {
    auto axes = leading_axes(dims[i], i, "DTensor");
    for (size_t j = 1; j < axes.size(); ++j)
      if (axes[j] < axes[j - 1] && sl.mesh().extent(axes[j]) > 1 && sl.mesh().extent(axes[j - 1]) > 1)
        fail(rule::kImportNotExpressible, "DTensor's Shard placements split a dim in mesh-dim order; dim " + std::to_string(i) + " has mesh dim " +
                                              std::to_string(axes[j]) + " inside mesh dim " + std::to_string(axes[j - 1]) + " (§6)");
    for (int a : axes) placement[a] = "Shard(" + std::to_string(i) + ")";
  }
  for (int a = 0; a < sl.mesh().rank(); ++a) {
    if (std::holds_alternative<Dynamic>(sl.attrs()[a])) fail(rule::kDynamicUnresolved, "mesh axis " + std::to_string(a) + " is Dynamic");
    if (const auto* p = std::get_if<Partial>(&sl.attrs()[a])) placement[a] = "Partial('" + p->reduction + "')";
  }
  for (int a = 0; a < sl.mesh().rank(); ++a) out.sharding += (a ? ", " : "") + placement[a];
  return out;
}

std::vector<int64_t> logical_local_shape(const ShardLayout& sl, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  for (const auto& d : dims_of(sl, shape)) {
    int64_t n = 1;
    for (const auto& f : d) n = checked_mul(n, f.axis >= 0 ? 1 : f.extent);
    out.push_back(n);
  }
  return out;
}

}  // namespace tfspec::protocol
