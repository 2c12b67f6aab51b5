// The generator of the MPI property (mpi_cases.hpp); the shape of its cases follows the plan
// property's generator (multigpu/tests/reshard_plan_props_test.cpp), with a fixed device count.
#include "mpi_cases.hpp"

#include <algorithm>

namespace tfspec::multigpu::mpi_testing {
namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t e : v) n *= e;
  return n;
}

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

struct Gen {
  std::mt19937_64& g;
  int pick(int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(g)); }
};

std::string mesh_text(int64_t devices, const std::vector<int64_t>& extents) {
  static const char* kNames[] = {"x", "y", "z"};
  std::string s = "device(" + std::to_string(devices) + ")|";
  for (size_t i = 0; i < extents.size(); ++i) s += (i ? "," : "") + std::string(kNames[i]) + "=" + std::to_string(extents[i]);
  return s;
}

// A Split of an unused G dim with the axis's extent (weighted), else Broadcast / Partial.
std::string gen_attr(Gen& r, const std::vector<int64_t>& g, int64_t extent, std::vector<bool>& used) {
  std::vector<size_t> dims;
  for (size_t k = 0; k < g.size(); ++k)
    if (!used[k] && g[k] == extent) dims.push_back(k);
  const int p = r.pick(dims.empty() ? 4 : 8);
  if (p < 4) {
    static const char* kOthers[] = {"B", "P()", "P(\"max\")", "P(min)"};
    return kOthers[p];
  }
  const size_t k = dims[static_cast<size_t>(r.pick(static_cast<int>(dims.size())))];
  used[k] = true;
  return "S(" + std::to_string(k) + ")";
}

std::vector<std::string> gen_attrs(Gen& r, const std::vector<int64_t>& g, const std::vector<int64_t>& mesh) {
  std::vector<bool> used(g.size(), false);
  std::vector<std::string> attrs;
  for (int64_t e : mesh) attrs.push_back(gen_attr(r, g, e, used));
  return attrs;
}

// Strides: None (materialized per instance), the shared C order over G, or a column-major
// per-instance order (0 on Split dims).
std::string layout_text(Gen& r, const std::vector<int64_t>& g, const std::vector<std::string>& attrs, int64_t devices, const std::vector<int64_t>& mesh) {
  std::vector<bool> split(g.size(), false);
  for (const auto& a : attrs)
    if (a[0] == 'S') split[static_cast<size_t>(std::stoi(a.substr(2)))] = true;
  std::string strides = "None";
  const int form = r.pick(3);
  if (form > 0) {
    std::vector<int64_t> s(g.size());
    int64_t step = 1;
    for (size_t i = 0; i < g.size(); ++i) {
      const size_t k = form == 1 ? g.size() - 1 - i : i;
      s[k] = form == 2 && split[k] ? 0 : step;
      if (s[k]) step *= g[k];
    }
    strides = "(" + join(s) + ")";
  }
  std::string text = "shard((" + join(g) + "):" + strides + "; ";
  for (size_t a = 0; a < attrs.size(); ++a) text += (a ? "," : "") + attrs[a];
  return text + "; " + mesh_text(devices, mesh) + ")";
}

// The mesh: the prime factors of `devices` dealt to 1-3 axes (an axis may stay of extent 1).
std::vector<int64_t> gen_mesh(Gen& r, int64_t devices) {
  std::vector<int64_t> mesh(static_cast<size_t>(1 + r.pick(3)), 1);
  int64_t left = devices;
  for (int64_t p = 2; left > 1; ++p)
    while (left % p == 0) left /= p, mesh[static_cast<size_t>(r.pick(static_cast<int>(mesh.size())))] *= p;
  return mesh;
}

}  // namespace

std::string GeneratedCase::command(int ranks, uint64_t seed) const {
  return "mpiexec -n " + std::to_string(ranks) + " tfspec reshard-run '" + src + "' '" + dst + "' '(" + join(shape) + ")' --dtype " + dtype +
         " --seed " + std::to_string(seed);
}

GeneratedCase generate_case(std::mt19937_64& engine, int64_t devices) {
  Gen r{engine};
  const std::vector<int64_t> mesh = gen_mesh(r, devices);
  std::vector<int64_t> g = mesh;  // the mesh extents (so Splits are possible) and up to two more dims
  // A second dim of a mesh extent, a third of the time: a Split can then move to it (all-to-all).
  if (r.pick(3) == 0) g.push_back(mesh[static_cast<size_t>(r.pick(static_cast<int>(mesh.size())))]);
  for (int i = r.pick(3); i > 0; --i) g.push_back(1 + r.pick(3));
  while (product(g) > 64 && g.size() > mesh.size()) g.pop_back();
  for (size_t i = g.size(); i > 1; --i) std::swap(g[i - 1], g[static_cast<size_t>(r.pick(static_cast<int>(i)))]);
  GeneratedCase c;
  c.shape = {g[0]};  // G's dims merged in row-major runs (D2)
  for (size_t k = 1; k < g.size(); ++k) {
    if (r.pick(2)) c.shape.back() *= g[k];
    else c.shape.push_back(g[k]);
  }
  const auto src = gen_attrs(r, g, mesh);
  c.src = layout_text(r, g, src, devices, mesh);
  const int mode = r.pick(4);
  if (mode < 2) {  // one axis changes its attr
    auto dst = src;
    const size_t a = static_cast<size_t>(r.pick(static_cast<int>(mesh.size())));
    std::vector<bool> used(g.size(), false);
    for (size_t b = 0; b < dst.size(); ++b)
      if (b != a && dst[b][0] == 'S') used[static_cast<size_t>(std::stoi(dst[b].substr(2)))] = true;
    dst[a] = gen_attr(r, g, mesh[a], used);
    c.dst = layout_text(r, g, dst, devices, mesh);
  } else if (mode == 2) {  // anything on the same mesh
    c.dst = layout_text(r, g, gen_attrs(r, g, mesh), devices, mesh);
  } else {  // the same devices as one axis, or the axes reversed
    std::vector<int64_t> rev(mesh.rbegin(), mesh.rend());
    const auto other = rev != mesh ? rev : std::vector<int64_t>{devices};
    c.dst = layout_text(r, g, gen_attrs(r, g, other), devices, other);
  }
  if (r.pick(20) == 0) {  // §6 Dynamic, rarely, on either side (as the first attr)
    std::string& side = r.pick(2) ? c.src : c.dst;
    auto at = side.find("; ") + 2;
    side.replace(at, side.find_first_of(",;", at) - at, "D");
    c.dynamic = true;
  }
  static const char* kDtypes[] = {"float32", "int32", "int8", "uint8", "float16", "bfloat16", "int64", "uint64", "float64", "uint32"};
  c.dtype = kDtypes[r.pick(10)];
  return c;
}

}  // namespace tfspec::multigpu::mpi_testing
