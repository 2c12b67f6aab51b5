// Reading a pipeline description (spec/KERNEL.md "The description"): every field is checked where
// it is read, and an error names its JSON path.
#include "tfspec/kernel/pipeline.hpp"

#include <map>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/smem.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::kernel {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) { fail(rule::kKernelInput, path + ": " + what, path); }

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// A misspelt optional field would be dropped silently: every object lists the fields it knows.
void only_known(const Json& j, const std::string& path, std::initializer_list<const char*> keys) {
  if (!j.is_object()) bad(path.empty() ? "(top)" : path, "expected an object");
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    std::string known;
    for (const char* k : keys) ok = ok || key == k, known += std::string(known.empty() ? "" : ", ") + k;
    if (!ok) bad(join(path, key), "unknown field (known here: " + known + ")");
  }
}

const Json& field(const Json& j, const std::string& key, const std::string& path) {
  if (!j.is_object()) bad(path.empty() ? "(top)" : path, "expected an object");
  auto it = j.find(key);
  if (it == j.end()) bad(join(path, key), "missing");
  return *it;
}

int64_t int_field(const Json& j, const std::string& key, const std::string& path, int64_t lo, int64_t hi) {
  const Json& v = field(j, key, path);
  if (!v.is_number_integer()) bad(join(path, key), "expected an integer, got " + v.dump());
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) bad(join(path, key), "expected " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + std::to_string(x));
  return x;
}

std::string text_field(const Json& j, const std::string& key, const std::string& path) {
  const Json& v = field(j, key, path);
  if (!v.is_string()) bad(join(path, key), "expected a string, got " + v.dump());
  return v.get<std::string>();
}

// A layout in the notation; a parse error keeps its rule and gains the path.
template <class Parse>
auto parsed(const std::string& text, const std::string& path, Parse parse) {
  try {
    return parse(text);
  } catch (const SpecError& e) {
    Diagnostic d = e.diagnostic();
    d.message = path + ": " + d.message;
    d.path = path;
    throw SpecError(d);
  }
}

Layout layout_field(const Json& j, const std::string& key, const std::string& path) {
  return parsed(text_field(j, key, path), join(path, key), [](const std::string& t) { return parse_layout(t); });
}

Layout concrete(Layout l, const std::string& path) {
  if (!is_concrete(l.shape_ref()) || !is_concrete(l.stride())) bad(path, "expected concrete extents and strides, got " + to_string(l));
  return l;
}

// CuTe's make_tiled_copy(atom, thr, val): layout_mn = raked_product(thr, val) maps a tile
// coordinate to thread + threads * value; its right inverse, read as (threads, values), is the TV.
TiledCopy copy_from_thread_value(const Layout& thr, const Layout& val, const std::string& path) {
  if (thr.rank() != 2 || val.rank() != 2) bad(path, "threads and values are rank-2 layouts over the (rows, cols) tile");
  TiledCopy c;
  c.path = path;
  try {
    const Layout mn = raked_product(thr, val);
    c.rows = mn.mode(0).size();
    c.cols = mn.mode(1).size();
    c.tv = composition(right_inverse(mn), Layout(IntTuple::tuple({IntTuple(thr.size()), IntTuple(val.size())})));
  } catch (const SpecError& e) {
    bad(path, "the thread and value layouts do not form a tiled copy (" + std::string(e.what()) + ")");
  }
  if (c.tv.size() != c.rows * c.cols)
    bad(path, "the thread layout " + to_string(thr) + " is not one-to-one onto its threads: the copy's TV layout " + to_string(c.tv) +
                  " has " + std::to_string(c.tv.size()) + " points for a " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + " tile");
  return c;
}

TiledCopy read_copy(const Json& j, const std::string& path, int64_t elem_bits) {
  only_known(j, path, {"atom", "atom_bits", "threads", "values", "tv", "tile", "source", "smem", "r2s_bits"});
  for (const char* key : {"source", "smem", "r2s_bits"})
    if (j.contains(key) && path != "epilogue") bad(join(path, key), std::string("only the epilogue has a ") + key);
  TiledCopy c;
  if (j.contains("tv")) {
    c.tv = concrete(layout_field(j, "tv", path), path + ".tv");
    const Json& tile = field(j, "tile", path);
    if (!tile.is_array() || tile.size() != 2 || !tile[0].is_number_integer() || !tile[1].is_number_integer() || tile[0].get<int64_t>() < 1 ||
        tile[1].get<int64_t>() < 1)
      bad(path + ".tile", "expected [rows, cols] of the copy's tile");
    c.rows = tile[0].get<int64_t>();
    c.cols = tile[1].get<int64_t>();
    c.path = path;
  } else {
    c = copy_from_thread_value(concrete(layout_field(j, "threads", path), path + ".threads"),
                               concrete(layout_field(j, "values", path), path + ".values"), path);
  }
  if (c.tv.rank() != 2) bad(path + ".tv", "a TV layout has two modes (thread, value); got " + to_string(c.tv));
  c.atom_bits = int_field(j, "atom_bits", path, 1, 1024);
  if (c.atom_bits % elem_bits != 0 || c.values() % (c.atom_bits / elem_bits) != 0)
    bad(path + ".atom_bits", std::to_string(c.atom_bits) + " bits per access is not a whole number of " + std::to_string(elem_bits) +
                                 "-bit elements dividing the " + std::to_string(c.values()) + " values per thread");
  return c;
}

// "g2s": {"tma": {"swizzle": "128B", "box": [rows, cols]}}; the box's fit is a check, not input.
TmaLoad read_tma(const Json& j, const std::string& path) {
  only_known(j, path, {"atom", "tma"});
  const std::string at = path + ".tma";
  const Json& t = field(j, "tma", path);
  only_known(t, at, {"swizzle", "box"});
  TmaLoad m;
  m.path = path;
  const std::string mode = text_field(t, "swizzle", at);
  const std::map<std::string, int64_t> modes = {{"none", 0}, {"32B", 32}, {"64B", 64}, {"128B", 128}};
  if (!modes.count(mode)) bad(at + ".swizzle", "a TMA swizzle mode is \"none\", \"32B\", \"64B\" or \"128B\", got \"" + mode + "\"");
  m.swizzle_bytes = modes.at(mode);
  const Json& box = field(t, "box", at);
  if (!box.is_array() || box.size() != 2 || !box[0].is_number_integer() || !box[1].is_number_integer() || box[0].get<int64_t>() < 1 ||
      box[1].get<int64_t>() < 1 || box[0].get<int64_t>() > (1 << 20) || box[1].get<int64_t>() > (1 << 20))
    bad(at + ".box", "expected [rows, cols] of the TMA box, positive integers");
  m.box_rows = box[0].get<int64_t>();
  m.box_cols = box[1].get<int64_t>();
  return m;
}

CopyAtom read_atom(const Json& j, const std::string& path) {
  only_known(j, path, {"name", "bits", "src", "dst", "units"});
  CopyAtom a;
  a.path = path;
  if (j.contains("name")) a.name = text_field(j, "name", path);
  a.bits = int_field(j, "bits", path, 1, 1024);
  a.src = concrete(layout_field(j, "src", path), path + ".src");
  a.dst = concrete(layout_field(j, "dst", path), path + ".dst");
  if (a.src.rank() != 2 || a.dst.rank() != 2) bad(path, "src and dst are (thread, value) layouts");
  const std::string units = j.contains("units") ? text_field(j, "units", path) : "elements";
  if (units != "elements" && units != "bits") bad(join(path, "units"), "\"elements\" (the default) or \"bits\", got \"" + units + "\"");
  a.in_bits = units == "bits";
  return a;
}

std::optional<Layout> operand_layout(const Json& j, const std::string& key, const std::string& path) {
  if (field(j, key, path).is_string() && field(j, key, path).get<std::string>() == "smem") return std::nullopt;
  return concrete(layout_field(j, key, path), join(path, key));
}

std::optional<Layout> permutation(const Json& perm, size_t i, const std::string& path) {
  const std::string at = path + "[" + std::to_string(i) + "]";
  const Json& p = perm[i];
  if (p.is_null()) return std::nullopt;
  if (p.is_number_integer() && p.get<int64_t>() >= 1) return Layout(IntTuple(p.get<int64_t>()));  // the identity of that size
  if (p.is_string()) return concrete(parsed(p.get<std::string>(), at, [](const std::string& t) { return parse_layout(t); }), at);
  bad(at, "a permutation is null, a size (the identity) or a layout, got " + p.dump());
}

Mma read_mma(const Json& j, const std::string& path) {
  only_known(j, path, {"name", "shape", "threads", "A", "B", "C", "atoms", "permutation"});
  Mma m;
  m.path = path;
  const Json& shape = field(j, "shape", path);
  if (!shape.is_array() || shape.size() != 3) bad(path + ".shape", "expected [M, N, K] of the atom");
  for (const Json& s : shape)
    if (!s.is_number_integer() || s.get<int64_t>() < 1) bad(path + ".shape", "expected positive integers");
  m.m = shape[0].get<int64_t>(), m.n = shape[1].get<int64_t>(), m.k = shape[2].get<int64_t>();
  m.atom_threads = int_field(j, "threads", path, 1, 1024);
  m.a = operand_layout(j, "A", path);
  m.b = operand_layout(j, "B", path);
  m.c = concrete(layout_field(j, "C", path), path + ".C");
  m.atoms = j.contains("atoms") ? concrete(layout_field(j, "atoms", path), path + ".atoms") : Layout(IntTuple::tuple({IntTuple(1), IntTuple(1), IntTuple(1)}));
  if (m.atoms.rank() != 3) bad(path + ".atoms", "the atom layout is rank 3 (M, N, K), got " + to_string(m.atoms));
  if (j.contains("permutation")) {
    const Json& perm = j["permutation"];
    if (!perm.is_array() || perm.size() != 3) bad(path + ".permutation", "expected [M, N, K] entries");
    for (size_t i = 0; i < 3; ++i) m.perm[i] = permutation(perm, i, path + ".permutation");
  }
  return m;
}

// A linear smem layout reads in spec/ALGEBRA.md's one direction (X2 "Direction"); the report's
// notes say which (Triton's `offset` in-dim: offset -> coordinates, read through its inverse).
LayoutPtr smem_layout(const Json& j, const std::string& path, std::vector<std::string>& notes) {
  const std::string text = text_field(j, "smem", path);
  std::string said;
  LayoutPtr l = parsed(text, path + ".smem", [&](const std::string& t) { return smem_tile_to_offset(parse_any_layout(t), said); });
  if (!said.empty()) notes.push_back(path + ".smem: " + said);
  return l;
}

Operand read_operand(const Json& j, char name, int64_t bits, const Json& globals, std::vector<std::string>& notes) {
  const std::string path(1, name);
  Operand o;
  o.name = name;
  o.bits = bits;
  o.global = layout_field(globals, path, "global");
  if (o.global.rank() != 2) bad("global." + path, "a global layout is rank 2 (rows, K), got " + to_string(o.global));
  const Json& op = field(j, path, "");
  only_known(op, path, {"g2s", "smem", "stage_stride", "s2r"});
  const Json& g2s = field(op, "g2s", path);
  if (g2s.is_object() && g2s.contains("tma")) o.tma = read_tma(g2s, path + ".g2s");
  else o.g2s = read_copy(g2s, path + ".g2s", bits);
  o.smem = smem_layout(op, path, notes);
  if (op.contains("stage_stride")) o.stage_stride = int_field(op, "stage_stride", path, 0, int64_t{1} << 24);
  if (op.contains("s2r")) o.s2r = read_atom(op["s2r"], path + ".s2r");
  return o;
}

int64_t bits_of(const Json& j, const char* name) {
  const Json& bits = field(j, "bits", "");
  const int64_t b = int_field(bits, name, "bits", 8, 128);
  if (b % 8 != 0 || (b & (b - 1)) != 0) bad(std::string("bits.") + name, "element bits are 8, 16, 32, 64 or 128, got " + std::to_string(b));
  return b;
}

}  // namespace

int64_t TiledCopy::threads() const { return product_int(tv.shape_ref()[0], "the copy's threads"); }
int64_t TiledCopy::values() const { return product_int(tv.shape_ref()[1], "the copy's values"); }

Pipeline read_pipeline(const Json& j) {
  if (!j.is_object()) bad("(top)", "a pipeline description is a JSON object");
  only_known(j, "", {"name", "arch", "threads", "tile", "stages", "bits", "global", "assume", "A", "B", "mma", "epilogue"});
  Pipeline p;
  p.name = j.contains("name") ? text_field(j, "name", "") : "kernel";
  p.arch = text_field(j, "arch", "");
  p.threads = int_field(j, "threads", "", 1, 1024);
  const Json& tile = field(j, "tile", "");
  if (!tile.is_array() || tile.size() != 3) bad("tile", "expected [BM, BN, BK]");
  for (const Json& t : tile)
    if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 4096) bad("tile", "expected integers 1..4096, got " + t.dump());
  p.bm = tile[0].get<int64_t>(), p.bn = tile[1].get<int64_t>(), p.bk = tile[2].get<int64_t>();
  p.stages = int_field(j, "stages", "", 1, 64);
  if (j.contains("assume")) {
    if (!j["assume"].is_array()) bad("assume", "expected an array of conditions");
    for (const Json& a : j["assume"]) {
      if (!a.is_string()) bad("assume", "expected strings, got " + a.dump());
      p.assume.push_back(a.get<std::string>());
    }
  }
  const Json& globals = field(j, "global", "");
  only_known(globals, "global", {"A", "B", "C"});
  only_known(field(j, "bits", ""), "bits", {"A", "B", "C"});
  p.a = read_operand(j, 'A', bits_of(j, "A"), globals, p.notes);
  p.b = read_operand(j, 'B', bits_of(j, "B"), globals, p.notes);
  p.bits_c = bits_of(j, "C");
  p.global_c = layout_field(globals, "C", "global");
  if (p.global_c.rank() != 2) bad("global.C", "a global layout is rank 2 (M, N), got " + to_string(p.global_c));
  p.mma = read_mma(field(j, "mma", ""), "mma");
  if (j.contains("epilogue")) {
    p.epilogue = read_copy(j["epilogue"], "epilogue", p.bits_c);
    const std::string source = j["epilogue"].contains("source") ? text_field(j["epilogue"], "source", "epilogue") : "smem";
    if (source != "smem" && source != "accumulators") bad("epilogue.source", "\"smem\" or \"accumulators\", got \"" + source + "\"");
    p.epilogue_from_accumulators = source == "accumulators";
    if (j["epilogue"].contains("smem")) {
      if (p.epilogue_from_accumulators) bad("epilogue.smem", "a staging buffer belongs to an epilogue whose source is \"smem\"");
      p.epilogue_smem = smem_layout(j["epilogue"], "epilogue", p.notes);
      p.r2s_bits = int_field(j["epilogue"], "r2s_bits", "epilogue", 1, 1024);
      if (p.r2s_bits % p.bits_c != 0) bad("epilogue.r2s_bits", std::to_string(p.r2s_bits) + " bits is not a whole number of " + std::to_string(p.bits_c) + "-bit elements");
    } else if (j["epilogue"].contains("r2s_bits")) {
      bad("epilogue.r2s_bits", "given without the staging buffer's layout (epilogue.smem)");
    }
  }
  return p;
}

int64_t stage_stride_of(const Operand& o, int64_t cosize) { return o.stage_stride.value_or(cosize); }

Operand epilogue_staging(const Pipeline& p) {
  Operand o;
  o.name = 'C';
  o.bits = p.bits_c;
  o.global = p.global_c;
  o.smem = p.epilogue_smem;
  return o;
}

Pipeline read_pipeline_text(const std::string& text) {
  Json j;
  try {
    j = parse_json_text(text, "the pipeline description");
  } catch (const Json::parse_error& e) {
    fail(rule::kJsonMalformed, std::string("the pipeline description is not JSON: ") + e.what());
  }
  return read_pipeline(j);
}

}  // namespace tfspec::kernel
