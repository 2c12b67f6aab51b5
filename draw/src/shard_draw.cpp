// Shard pictures: who owns each element of the logical tensor (§6, §7.2, D3) and what moves in a
// reshard (§7.4). Owners come from the reference (holders, physical_element); the engines of
// distribute / reshard are read back to confirm each owner holds its element.
#include <algorithm>
#include <map>
#include <optional>
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

// Every element's owners (§6 holders, §7.1.2 / D3 physical_element), row-major over flat G (D2:
// that is logical order), each in the order holders() gives them.
std::vector<std::vector<Owner>> owners_of(const ShardLayout& sl, Storage storage) {
  const std::vector<int64_t> g = flat_extents(sl);
  int64_t replicas = sl.mesh().size();  // every element has mesh size / (split extents) owners
  for (size_t a = 0; a < sl.attrs().size(); ++a)
    if (std::holds_alternative<Split>(sl.attrs()[a])) replicas /= sl.mesh().extent(static_cast<int>(a));
  require_drawable(checked_mul(element_count(g), replicas), "the owners of " + to_string(sl));
  std::vector<int64_t> loc;
  for (const auto& x : flat_leaves(local_shape(sl))) loc.push_back(x.value());
  const auto bind = split_binding(sl);
  std::vector<std::vector<Owner>> out;
  for (const auto& global : row_major_coords(g)) {
    std::vector<Owner> owners;
    for (const auto& m : holders(sl, global)) {
      std::vector<int64_t> local = global;
      for (size_t k = 0; k < local.size(); ++k)
        if (bind[k]) local[k] = global[k] % loc[k];
      const PhysicalElement pe = physical_element(sl, storage, m, local);
      owners.push_back({m, sl.mesh().device_of(m), pe.engine, pe.offset});
    }
    out.push_back(std::move(owners));
  }
  return out;
}

// The picture's self-check: each owner holds its element (numbered e + 1) in the engines
// distribute / reshard wrote.
void confirm_owners(const std::vector<std::vector<Owner>>& owners, const Engines& engines) {
  for (size_t e = 0; e < owners.size(); ++e)
    for (const auto& o : owners[e]) {
      const int64_t held = engines.buffers.at(o.engine).at(static_cast<size_t>(o.offset));
      if (held != static_cast<int64_t>(e) + 1 && held != 0)  // 0: a Partial sum contribution (spec/SHARD.md "Partial")
        fail(rule::in(rule::kInternal, "§7"), "the distributed engine " + std::to_string(o.engine) + " holds " + std::to_string(held) +
                                                  " where element " + std::to_string(e) + " belongs (a tfspec bug)");
    }
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

std::string tuple_words(const std::vector<int64_t>& v) {
  std::vector<IntTuple> t(v.begin(), v.end());
  return to_string(IntTuple::tuple(t));
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
  require_drawable(element_count(shape), "the logical tensor " + tuple_words(shape));
  const ShardLayout sl = materialized(sl_in, shape, storage, storage);
  const auto owners = owners_of(sl, storage);
  confirm_owners(owners, distribute(numbered(shape), sl, storage));
  require_drawable(stripes(owners), "the owners of " + to_string(sl));
  Picture p;
  p.title = "shard " + to_string(sl);
  p.grids = {owner_grid(sl, storage, shape, owners, "logical tensor " + tuple_words(shape) + " on " + to_string(storage) +
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
  const auto from = owners_of(src, src_storage), to = owners_of(dst, dst_storage);
  confirm_owners(from, before);
  confirm_owners(to, after);
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

namespace {

// "(shard-injective §2)": a rule as the picture cites it, from the catalogue.
std::string cite(const RuleId& r, const std::string& more = "") {
  return "(" + std::string(r.id) + " " + std::string(r.clause) + more + ")";
}

std::string diagnostic_words(const Diagnostic& d) {
  return "[" + d.rule + " " + d.clause + "] " + d.message + (d.path.empty() ? "" : " (at " + d.path + ")");
}

// Marks what check_shard_layout's D3 walk finds (§2): every element sharing an (engine, offset)
// with a different element (shard-injective), and every element two of whose Partial
// contributions share one (partial-aliased). Broadcast replicas may share one (D3). All pairs
// are marked, not only the first the check reports. Returns how many cells were marked.
int64_t mark_aliases(Grid& g, const ShardLayout& sl, const std::vector<int64_t>& shape, const std::vector<std::vector<Owner>>& owners) {
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<size_t, const Owner*>>> at;
  for (size_t e = 0; e < owners.size(); ++e)
    for (const auto& o : owners[e]) at[{o.engine, o.offset}].push_back({e, &o});
  std::set<size_t> marked;
  for (const auto& [place, here] : at)
    for (size_t i = 0; i < here.size(); ++i)
      for (size_t j = 0; j < here.size(); ++j) {
        if (i == j) continue;
        const auto [e, o] = here[i];
        const auto [f, q] = here[j];
        const std::string where = "engine " + std::to_string(place.first) + " offset " + std::to_string(place.second);
        std::string why;
        if (e != f) {
          why = "shares " + where + " with element " + index_words(shape, static_cast<int64_t>(f)) + " " + cite(rule::kShardInjective, ", D3");
        } else {
          for (size_t a = 0; a < o->mesh_coord.size() && why.empty(); ++a)
            if (o->mesh_coord[a] != q->mesh_coord[a] && std::holds_alternative<Partial>(sl.attrs()[a]))
              why = "Partial contributions of #" + std::to_string(o->device) + " and #" + std::to_string(q->device) + " share " + where +
                    " " + cite(rule::kPartialAliased);
        }
        if (why.empty()) continue;
        Cell& cell = g.cells[e];
        cell.mark = Mark::Collision;
        if (cell.title.find(why) == std::string::npos) cell.title += " " + why + ";";
        marked.insert(e);
      }
  return static_cast<int64_t>(marked.size());
}

}  // namespace

std::string shard_check_svg(const ShardLayout& sl_in, const ShardCheckOptions& opts) {
  Picture p;
  CheckReport report;
  bool raised = false;
  try {
    report = check_shard_layout(sl_in, opts, "layout");
  } catch (const SpecError& e) {  // an input error the check cannot get past: shown, drawn if possible
    p.notes.push_back("error: " + diagnostic_words(e.diagnostic()));
    raised = true;
  }
  for (const auto& d : report.violations) p.notes.push_back("violation: " + diagnostic_words(d));
  for (const auto& d : report.undecided) p.notes.push_back("undecided: " + diagnostic_words(d));
  const Storage storage = opts.storage.value_or(Storage::Rmem);  // as the check: per-instance engines when unknown
  // Owners are placed (holders, physical_element) only for a layout every other rule accepts:
  // those walks assume it (an attrs list shorter than the mesh, say, would be read past its end).
  bool placeable = !raised;
  for (const auto& d : report.violations) placeable = placeable && (d.rule == rule::kShardInjective.id || d.rule == rule::kPartialAliased.id);
  if (!placeable) {
    if (!raised) p.notes.push_back("not drawn: owners are placed only when the rules other than " + std::string(rule::kShardInjective.id) + " and " +
                                   std::string(rule::kPartialAliased.id) + " hold");
  } else try {
    std::vector<int64_t> shape = opts.tensor_shape ? std::vector<int64_t>{} : flat_extents(sl_in);
    if (opts.tensor_shape)
      for (const auto& x : flat_leaves(*opts.tensor_shape)) shape.push_back(require_int(x, "logical extent"));
    require_drawable(element_count(shape), "the logical tensor " + tuple_words(shape));
    // Given strides are drawn as given (materializing would run the very checks drawn here, D4).
    const LayoutBase& inner = *sl_in.layout();
    const bool given = inner.kind() != LayoutKind::Layout || static_cast<const Layout&>(inner).materialized();
    const ShardLayout sl = given ? sl_in : materialized(sl_in, shape, storage, storage);
    const auto owners = owners_of(sl, storage);
    Grid g = owner_grid(sl, storage, shape, owners, "logical tensor " + tuple_words(shape) + " on " + to_string(storage) +
                                                        (opts.storage ? "" : " (storage not given: per-instance engines)") +
                                                        ": each owner #device@offset; marked: shares an (engine, offset) it may not");
    if (const int64_t n = mark_aliases(g, sl, shape, owners))
      p.notes.push_back(std::to_string(n) + " marked element(s) share an (engine, offset) with a different element or Partial contribution (§2, D3)");
    p.grids = {std::move(g)};
    add_legend(p, sl, storage, "");
  } catch (const SpecError& e) {
    if (e.rule() == rule::kDrawTooLarge.id) throw;  // asked for a picture it cannot hold: an error, as everywhere
    if (!raised) p.notes.push_back("not drawn: " + diagnostic_words(e.diagnostic()));
  }
  const size_t n = report.violations.size();
  p.title = "check " + to_string(sl_in) + ": " +
            (raised ? "input error" : n ? std::to_string(n) + " violation(s)" : report.undecided.empty() ? "ok" : "undecided");
  return to_svg(p);
}

std::string assemble_svg(const Engines& engines, const ShardLayout& sl, const std::vector<int64_t>& shape) {
  std::optional<Tensor> value;
  std::string verdict;
  try {
    value = assemble(engines, sl, shape);  // §6 / §7 as the reference defines it
    verdict = "assembled: the replicas agree";
  } catch (const SpecError& e) {
    const std::string r = e.rule();
    // What the picture can show: engines' contents that disagree or are missing. Anything else
    // (an invalid layout, a shape that does not match) is the caller's error, not a picture.
    if (r != rule::kReplicaMismatch.id && r != rule::kEngineMissing.id && r != rule::kEngineBufferSize.id && r != rule::kEngineUnknown.id) throw;
    verdict = "assemble refuses: " + diagnostic_words(e.diagnostic());
  }
  require_drawable(element_count(shape), "the logical tensor " + tuple_words(shape));
  const auto owners = owners_of(sl, engines.storage);
  require_drawable(stripes(owners), "the owners of " + to_string(sl));
  Grid g = tensor_grid(shape, "values", "logical tensor " + tuple_words(shape) + " from " + to_string(engines.storage) +
                                            " engines: each owner #device=value; marked: replicas that disagree, values missing");
  const std::string partial = partial_words(sl);
  int64_t mismatched = 0, missing = 0;
  for (size_t e = 0; e < owners.size(); ++e) {
    Cell& cell = g.cells[e];
    cell.partial = partial;
    cell.title = "element " + index_words(shape, static_cast<int64_t>(e)) + ":";
    // Replicas: owners with the same coordinates on every Partial axis hold one value (§6).
    std::map<std::vector<int64_t>, std::set<int64_t>> replica_values;
    for (const auto& o : owners[e]) {
      const auto it = engines.buffers.find(o.engine);
      const bool held = it != engines.buffers.end() && o.offset >= 0 && o.offset < static_cast<int64_t>(it->second.size());
      const std::string d = "#" + std::to_string(o.device);
      cell.title += " " + d + " " + mesh_words(sl.mesh(), o.mesh_coord) + " engine " + std::to_string(o.engine) + " offset " +
                    std::to_string(o.offset);
      if (!held) {
        cell.stripes.push_back({d + "=?", "#ffffff"});
        cell.title += " is not in the engines given;";
        cell.mark = Mark::Missing;
        continue;
      }
      const int64_t v = it->second[static_cast<size_t>(o.offset)];
      cell.stripes.push_back({d + "=" + std::to_string(v), palette(o.device)});
      cell.title += " holds " + std::to_string(v) + ";";
      std::vector<int64_t> key;
      for (size_t a = 0; a < o.mesh_coord.size(); ++a)
        if (std::holds_alternative<Partial>(sl.attrs()[a])) key.push_back(o.mesh_coord[a]);
      replica_values[key].insert(v);
    }
    for (const auto& [key, vals] : replica_values)
      if (vals.size() > 1 && cell.mark == Mark::None) {
        cell.mark = Mark::Mismatch;
        cell.title += " Broadcast replicas disagree " + cite(rule::kReplicaMismatch) + ";";
      }
    if (cell.mark == Mark::Mismatch) ++mismatched;
    if (cell.mark == Mark::Missing) ++missing;
    if (value) cell.title += " value " + std::to_string(value->data[e]) + (partial.empty() ? "" : " (" + partial + ")");
  }
  Picture p;
  p.title = "assemble " + to_string(sl) + ": " + (value ? "ok" : "refused");
  p.grids = {std::move(g)};
  add_legend(p, sl, engines.storage, "");
  p.notes.push_back(verdict);
  if (mismatched) p.notes.push_back(std::to_string(mismatched) + " marked element(s) whose Broadcast replicas hold different values " + cite(rule::kReplicaMismatch));
  if (missing) p.notes.push_back(std::to_string(missing) + " marked element(s) with an owner whose engine or offset is not in the engines given (§7)");
  if (!partial.empty()) p.notes.push_back("dashed: Partial contributions (" + partial + "), reduced to the value (§6)");
  return to_svg(p);
}

}  // namespace tfspec::draw
