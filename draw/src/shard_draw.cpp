// Shard pictures: who owns each element of the logical tensor (§6, §7.2, D3) and what moves in a
// reshard (§7.4). Owners come from the reference (holders, physical_element); the engines of
// distribute / reshard are read back to confirm each owner holds its element.
#include <algorithm>
#include <set>

#include "picture.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::draw {
namespace {

struct Owner {
  std::vector<int64_t> mesh_coord;
  int64_t device = 0, engine = 0, offset = 0;
};

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n = checked_mul(n, e);
  return n;
}

// §7.1.2 / D4: strides as a Reshard from `from` to `to` materializes them (given ones kept).
ShardLayout materialized(const ShardLayout& sl, const std::vector<int64_t>& shape, Storage from, Storage to) {
  std::vector<IntTuple> s(shape.begin(), shape.end());
  TensorType out = reshard_typeinfer(TensorType{IntTuple::tuple(s), nullptr, from}, sl, to);
  return static_cast<const ShardLayout&>(*out.layout);
}

Tensor numbered(const std::vector<int64_t>& shape) {  // x[e] = e + 1, so 0 is a Partial identity
  Tensor t{shape, {}};
  for (int64_t e = 0; e < element_count(shape); ++e) t.data.push_back(e + 1);
  return t;
}

// Every element's owners, in the order holders() gives them; each checked against `engines`.
std::vector<std::vector<Owner>> owners_of(const ShardLayout& sl, Storage storage, const Engines& engines) {
  const std::vector<int64_t> g = flat_extents(sl);
  std::vector<int64_t> loc;
  for (const auto& x : flat_leaves(local_shape(sl))) loc.push_back(x.value());
  const auto bind = split_binding(sl);
  std::vector<std::vector<Owner>> out;
  int64_t e = 0;
  for (const auto& global : row_major_coords(g)) {  // D2: row-major over flat G is logical order
    std::vector<Owner> owners;
    for (const auto& m : holders(sl, global)) {
      std::vector<int64_t> local = global;
      for (size_t k = 0; k < local.size(); ++k)
        if (bind[k]) local[k] = global[k] % loc[k];
      const PhysicalElement pe = physical_element(sl, storage, m, local);
      const int64_t held = engines.buffers.at(pe.engine).at(static_cast<size_t>(pe.offset));
      if (held != e + 1 && held != 0)  // 0: a Partial sum contribution (spec/SHARD.md "Partial")
        fail(rule::in(rule::kInternal, "§7"), "the distributed engine " + std::to_string(pe.engine) + " holds " + std::to_string(held) +
                                                  " where element " + std::to_string(e) + " belongs (a tfspec bug)");
      owners.push_back({m, sl.mesh().device_of(m), pe.engine, pe.offset});
    }
    out.push_back(std::move(owners));
    ++e;
  }
  return out;
}

std::string mesh_words(const Mesh& mesh, const std::vector<int64_t>& m) {
  std::string s;
  for (size_t a = 0; a < m.size(); ++a) {
    s += a ? "," : "";
    if (mesh.names()) s += (*mesh.names())[a] + "=";
    s += std::to_string(m[a]);
  }
  return "(" + s + ")";
}

std::string axis_name(const Mesh& mesh, size_t a) { return mesh.names() ? (*mesh.names())[a] : "axis " + std::to_string(a); }

// "sum over y, max over z": the Partial axes of sl (§6), or "".
std::string partial_words(const ShardLayout& sl) {
  std::string s;
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (const auto* p = std::get_if<Partial>(&sl.attrs()[a])) s += (s.empty() ? "" : ", ") + p->reduction + " over " + axis_name(sl.mesh(), a);
  return s;
}

std::vector<int64_t> mesh_extents(const Mesh& mesh) {
  std::vector<int64_t> e;
  for (int a = 0; a < mesh.rank(); ++a) e.push_back(mesh.extent(a));
  return e;
}

Grid tensor_grid(const std::vector<int64_t>& shape, std::string kind, std::string caption) {
  Grid g;
  g.kind = std::move(kind);
  g.caption = std::move(caption);
  const int64_t n = element_count(shape);
  g.rows = shape.size() >= 2 ? shape[0] : 1;
  g.cols = g.rows == 0 ? 0 : n / g.rows;
  g.cells.resize(static_cast<size_t>(n));
  return g;
}

std::string index_words(const std::vector<int64_t>& shape, int64_t e) {
  std::vector<IntTuple> c(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    c[k] = IntTuple(e % shape[k]);
    e /= shape[k];
  }
  return to_string(IntTuple::tuple(c));
}

Grid owner_grid(const ShardLayout& sl, Storage storage, const std::vector<int64_t>& shape, const std::vector<std::vector<Owner>>& owners,
                const std::string& caption) {
  Grid g = tensor_grid(shape, "owners", caption);
  const std::string partial = partial_words(sl);
  for (size_t e = 0; e < owners.size(); ++e) {
    Cell& cell = g.cells[e];
    cell.partial = partial;
    cell.title = "element " + index_words(shape, static_cast<int64_t>(e)) + " (" + to_string(storage) + "):";
    for (const auto& o : owners[e]) {
      cell.stripes.push_back({"#" + std::to_string(o.device) + "@" + std::to_string(o.offset), palette(o.device)});
      cell.title += " #" + std::to_string(o.device) + " " + mesh_words(sl.mesh(), o.mesh_coord) + " engine " + std::to_string(o.engine) +
                    " offset " + std::to_string(o.offset) + ";";
    }
    if (!partial.empty()) cell.title += " Partial: " + partial;
  }
  return g;
}

void add_legend(Picture& p, const ShardLayout& sl, Storage storage, const std::string& prefix) {
  const auto coords = row_major_coords(mesh_extents(sl.mesh()));
  require_drawable(static_cast<int64_t>(coords.size()), "the legend of the mesh " + to_string(sl.mesh()));
  for (const auto& m : coords) {
    const int64_t d = sl.mesh().device_of(m);
    p.legend.push_back({palette(d), prefix + "#" + std::to_string(d) + " " + mesh_words(sl.mesh(), m) + " -> " + to_string(storage) +
                                        " engine " + std::to_string(engine_of(sl.mesh(), m, storage))});
  }
}

int64_t stripes(const std::vector<std::vector<Owner>>& owners) {
  int64_t n = 0;
  for (const auto& o : owners) n += static_cast<int64_t>(o.size());
  return n;
}

}  // namespace

std::string shard_svg(const ShardLayout& sl_in, const std::vector<int64_t>& shape, Storage storage) {
  require_drawable(element_count(shape), "the logical tensor " + [&] {
    std::vector<IntTuple> s(shape.begin(), shape.end());
    return to_string(IntTuple::tuple(s));
  }());
  const ShardLayout sl = materialized(sl_in, shape, storage, storage);
  const Engines engines = distribute(numbered(shape), sl, storage);
  const auto owners = owners_of(sl, storage, engines);
  require_drawable(stripes(owners), "the owners of " + to_string(sl));
  Picture p;
  p.title = "shard " + to_string(sl);
  std::vector<IntTuple> s(shape.begin(), shape.end());
  p.grids = {owner_grid(sl, storage, shape, owners, "logical tensor " + to_string(IntTuple::tuple(s)) + " on " + to_string(storage) +
                                                        ": each owner #device@offset; several owners (replicas, Partial contributions) stacked")};
  add_legend(p, sl, storage, "");
  if (const std::string partial = partial_words(sl); !partial.empty())
    p.notes.push_back("dashed: the owners hold Partial contributions (" + partial + "); an allreduce gives the value (§6)");
  return to_svg(p);
}

std::string reshard_svg(const ShardLayout& src_in, const ShardLayout& dst_in, const std::vector<int64_t>& shape, Storage src_storage,
                        Storage dst_storage) {
  require_drawable(3 * element_count(shape), "three pictures of the logical tensor");
  const ShardLayout src = materialized(src_in, shape, src_storage, src_storage);
  const ShardLayout dst = materialized(dst_in, shape, src_storage, dst_storage);
  const Tensor t = numbered(shape);
  const Engines before = distribute(t, src, src_storage);
  const Engines after = reshard(before, src, dst, dst_storage, shape);  // §7.4 as the reference runs it
  if (assemble(after, dst, shape) != t) fail(rule::in(rule::kInternal, "§7.4"), "reshard changed the value (a tfspec bug)");
  const auto from = owners_of(src, src_storage, before), to = owners_of(dst, dst_storage, after);
  require_drawable(2 * stripes(from) + 2 * stripes(to), "the owners of both layouts");

  Grid moves = tensor_grid(shape, "moves", "what moves: per destination owner, kept on its device, <-#source, or <-reduction");
  const std::string reduction = partial_words(src);
  std::string first_reduction;
  for (const auto& a : src.attrs())
    if (const auto* partial = std::get_if<Partial>(&a); partial && first_reduction.empty()) first_reduction = partial->reduction;
  int64_t kept = 0, moved = 0, reduced = 0;
  for (size_t e = 0; e < to.size(); ++e) {
    std::set<int64_t> sources;
    for (const auto& o : from[e]) sources.insert(o.device);
    Cell& cell = moves.cells[e];
    cell.title = "element " + index_words(shape, static_cast<int64_t>(e)) + ":";
    for (const auto& o : to[e]) {
      const std::string d = "#" + std::to_string(o.device);
      if (!reduction.empty()) {  // §6: the value is the reduction of the Partial contributions
        cell.stripes.push_back({d + "<-" + first_reduction, palette(o.device)});
        cell.partial = reduction;
        cell.title += " " + d + " reduces " + std::to_string(from[e].size()) + " contributions (" + reduction + ");";
        ++reduced;
      } else if (sources.count(o.device)) {
        cell.stripes.push_back({d + " kept", "#f0f0f0"});
        cell.title += " " + d + " already holds it;";
        ++kept;
      } else {
        const int64_t s = *sources.begin();
        cell.stripes.push_back({d + "<-#" + std::to_string(s), palette(s)});
        cell.title += " " + d + " receives it from #" + std::to_string(s) + ";";
        ++moved;
      }
    }
  }
  Picture p;
  p.title = "reshard " + to_string(src) + " (" + to_string(src_storage) + ") -> " + to_string(dst) + " (" + to_string(dst_storage) + ")";
  p.grids = {owner_grid(src, src_storage, shape, from, "before: " + to_string(src) + " on " + to_string(src_storage)),
             owner_grid(dst, dst_storage, shape, to, "after: " + to_string(dst) + " on " + to_string(dst_storage)), moves};
  add_legend(p, src, src_storage, "before ");
  add_legend(p, dst, dst_storage, "after ");
  p.notes.push_back(std::to_string(moved) + " destination copies move between devices, " + std::to_string(kept) + " stay on their device, " +
                    std::to_string(reduced) + " are reductions of Partial contributions; the value is preserved (assembled and compared)");
  return to_svg(p);
}

}  // namespace tfspec::draw
