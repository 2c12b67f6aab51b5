// X2 linear layouts (spec/ALGEBRA.md, Extensions): the kind, the F2 algebra Triton defines on it,
// and the conversions to and from CuTe layouts. Every op works on the flattened bases (one int64
// per input bit) and splits the answer back into named dims.
#include "tfspec/reference/linear.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <set>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/injective.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {

namespace {

bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
int log2_of(int64_t pow2) { return std::countr_zero(static_cast<uint64_t>(pow2)); }

// The F2 span of a list of vectors, in reduced row echelon form keyed by each row's highest bit,
// with the combination of inputs each row is (bit k of `combo` = input vector k), so that a value
// in the span can be written back as a combination of the inputs.
struct Echelon {
  struct Row {
    int64_t value, combo;
  };
  std::vector<Row> rows;         // by lead bit, highest first after reduce()
  std::vector<int64_t> kernel;   // combinations of inputs that sum to 0 (a basis of the kernel)

  explicit Echelon(const std::vector<int64_t>& vs) {
    for (size_t k = 0; k < vs.size(); ++k) {
      Row r{vs[k], int64_t{1} << k};
      for (const Row& p : rows)
        if (r.value & lead(p.value)) r.value ^= p.value, r.combo ^= p.combo;
      if (r.value == 0) {
        kernel.push_back(r.combo);
        continue;
      }
      for (Row& p : rows)  // keep every row free of the new row's lead bit (reduced form)
        if (p.value & lead(r.value)) p.value ^= r.value, p.combo ^= r.combo;
      rows.push_back(r);
      std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.value > b.value; });
    }
  }
  static int64_t lead(int64_t v) { return v == 0 ? 0 : int64_t{1} << (63 - std::countl_zero(static_cast<uint64_t>(v))); }
  int rank() const { return static_cast<int>(rows.size()); }

  // A combination of the inputs summing to y, or none when y is outside the span. Unique up to
  // the kernel; the rows' representation of y is unique, so the map y -> combination is linear.
  std::optional<int64_t> solve(int64_t y) const {
    int64_t combo = 0;
    for (const Row& p : rows)
      if (y & lead(p.value)) y ^= p.value, combo ^= p.combo;
    if (y != 0) return std::nullopt;
    return combo;
  }
};

// The kernel's basis in reduced echelon form by highest bit: reducing x by it gives the smallest
// element of x + kernel, and the reduction is linear in x (each lead bit lives in one row only).
std::vector<int64_t> reduced(std::vector<int64_t> vs) {
  std::vector<int64_t> rows;
  for (int64_t v : vs) {
    for (int64_t p : rows)
      if (v & Echelon::lead(p)) v ^= p;
    if (v == 0) continue;
    for (int64_t& p : rows)
      if (p & Echelon::lead(v)) p ^= v;
    rows.push_back(v);
  }
  std::sort(rows.begin(), rows.end(), std::greater<>());
  return rows;
}

int64_t reduce_by(int64_t x, const std::vector<int64_t>& rows) {
  for (int64_t p : rows)
    if (x & Echelon::lead(p)) x ^= p;
  return x;
}

std::vector<int> out_offsets(const std::vector<LinearOutDim>& outs) {
  std::vector<int> off;
  int bits = 0;
  for (const LinearOutDim& o : outs) {
    off.push_back(bits);
    bits += log2_of(o.size);
  }
  return off;
}

int64_t flatten_vector(const std::vector<int64_t>& v, const std::vector<LinearOutDim>& outs) {
  const std::vector<int> off = out_offsets(outs);
  int64_t f = 0;
  for (size_t d = 0; d < outs.size(); ++d) f |= v[d] << off[d];
  return f;
}

std::vector<int64_t> split_value(int64_t f, const std::vector<LinearOutDim>& outs) {
  std::vector<int64_t> v;
  for (const LinearOutDim& o : outs) {
    v.push_back(f & (o.size - 1));
    f >>= log2_of(o.size);
  }
  return v;
}

// The in-dims of a flat input of the given bases, split as `dims` (name, bits).
std::vector<LinearInDim> split_ins(const std::vector<std::vector<int64_t>>& flat_vectors, const std::vector<std::pair<std::string, int>>& dims) {
  std::vector<LinearInDim> ins;
  size_t k = 0;
  for (const auto& [name, bits] : dims) {
    LinearInDim d{name, {}};
    for (int b = 0; b < bits; ++b) d.bases.push_back(flat_vectors[k++]);
    ins.push_back(std::move(d));
  }
  return ins;
}

std::string dim_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return "[" + s + "]";
}

std::vector<std::string> in_names(const LinearLayout& l) {
  std::vector<std::string> n;
  for (const LinearInDim& d : l.ins()) n.push_back(d.name);
  return n;
}
std::vector<std::string> out_names(const LinearLayout& l) {
  std::vector<std::string> n;
  for (const LinearOutDim& d : l.outs()) n.push_back(d.name);
  return n;
}

std::vector<std::pair<std::string, int>> bits_of(const std::vector<std::pair<std::string, int64_t>>& dims, RuleRef rule, const std::string& what) {
  std::vector<std::pair<std::string, int>> out;
  std::set<std::string> seen;
  for (const auto& [name, size] : dims) {
    if (name.empty() || !seen.insert(name).second) fail(rule::kLinearDims, what + ": dim names are non-empty and unique; '" + name + "' is not");
    if (!power_of_two(size)) fail(rule, what + ": the size of '" + name + "' is a power of two; got " + std::to_string(size));
    out.emplace_back(name, log2_of(size));
  }
  return out;
}

}  // namespace

LinearLayout::LinearLayout(std::vector<LinearInDim> ins, std::vector<LinearOutDim> outs) : ins_(std::move(ins)), outs_(std::move(outs)) {
  std::set<std::string> names;
  for (const LinearOutDim& o : outs_) {
    if (o.name.empty() || !names.insert(o.name).second)
      fail(rule::kLinearDims, "a linear layout's out-dims have non-empty, unique names; '" + o.name + "' is not");
    if (!power_of_two(o.size)) fail(rule::kLinearSizePow2, "out-dim '" + o.name + "' has size " + std::to_string(o.size) + ", not a power of two");
    out_bits_ += log2_of(o.size);
    if (out_bits_ > kMaxLinearBits) fail(rule::kLinearTooLarge, "the out-dims have more than " + std::to_string(kMaxLinearBits) + " bits together");
  }
  names.clear();
  for (const LinearInDim& d : ins_) {
    if (d.name.empty() || !names.insert(d.name).second)
      fail(rule::kLinearDims, "a linear layout's in-dims have non-empty, unique names; '" + d.name + "' is not");
    for (size_t b = 0; b < d.bases.size(); ++b) {
      const std::string at = d.name + "=" + std::to_string(int64_t{1} << std::min<size_t>(b, 62));
      if (flat_.size() >= static_cast<size_t>(kMaxLinearBits))
        fail(rule::kLinearTooLarge, "the in-dims have more than " + std::to_string(kMaxLinearBits) + " bases (input bits) together");
      const std::vector<int64_t>& v = d.bases[b];
      if (v.size() != outs_.size())
        fail(rule::kLinearDims, "basis " + at + " has " + std::to_string(v.size()) + " entries; the layout has " + std::to_string(outs_.size()) + " out-dims");
      for (size_t o = 0; o < v.size(); ++o)
        if (v[o] < 0 || v[o] >= outs_[o].size)
          fail(rule::kLinearBasisRange, "basis " + at + " has " + std::to_string(v[o]) + " in out-dim '" + outs_[o].name + "' of size " + std::to_string(outs_[o].size));
      flat_.push_back(flatten_vector(v, outs_));
    }
  }
  for (size_t c = 0; c * 8 < flat_.size(); ++c) {
    std::array<int64_t, 256>& t = tables_.emplace_back();
    t[0] = 0;
    for (size_t b = 1; b < 256; ++b) {
      const size_t low = static_cast<size_t>(std::countr_zero(b));  // t[b] = t[b without its lowest bit] xor that bit's basis
      const size_t k = c * 8 + low;
      t[b] = t[b & (b - 1)] ^ (k < flat_.size() ? flat_[k] : 0);
    }
  }
}

std::optional<StructuralBases> structural_bases(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Linear: return StructuralBases{true, static_cast<const LinearLayout&>(l).flat_bases()};
    case LayoutKind::Layout: {
      const auto& x = static_cast<const Layout&>(l);
      if (!x.materialized() || !is_concrete(x.shape_ref()) || !is_concrete(x.stride())) return std::nullopt;
      const IntTuple shape = flatten(x.shape_ref()), stride = flatten(x.stride());
      StructuralBases r{true, {}};
      int64_t seen = 0;
      for (size_t m = 0; m < shape.len(); ++m) {
        const int64_t e = shape[m].value(), d = stride[m].value();
        if (!power_of_two(e)) return std::nullopt;  // the size is no power of two: not a linear layout's domain
        for (int64_t j = 1; j < e; j <<= 1) {
          int64_t v = 0;
          if (d < 0 || __builtin_mul_overflow(d, j, &v) || (seen & v) != 0) return StructuralBases{false, {}};
          seen |= v;
          r.bases.push_back(v);
        }
      }
      return r;
    }
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      if (!c.outer() || c.outer()->kind() != LayoutKind::Layout) return std::nullopt;
      if (c.inner() && c.inner()->kind() != LayoutKind::Swizzle) return std::nullopt;
      std::optional<StructuralBases> r = structural_bases(*c.outer());
      if (!r) return r;
      if (c.offset() != 0) return StructuralBases{false, {}};  // index 0 maps to Sw(offset) != 0
      if (c.inner())
        for (int64_t& v : r->bases) v = static_cast<const Swizzle&>(*c.inner())(v);
      return r;
    }
    default: return std::nullopt;
  }
}

IntTuple LinearLayout::shape() const {
  if (ins_.size() == 1) return IntTuple(int64_t{1} << in_dim_bits(0));
  if (ins_.empty()) return IntTuple(1);
  std::vector<IntTuple> s;
  for (size_t i = 0; i < ins_.size(); ++i) s.emplace_back(int64_t{1} << in_dim_bits(i));
  return IntTuple::tuple(std::move(s));
}

int64_t LinearLayout::apply(const IntTuple& coord) const {
  const IntTuple s = shape();
  int64_t index = 0;
  if (coord.is_int()) {
    index = coord.value();
    if (index < 0 || index >= size())
      fail(rule::kCoordInDomain, "index " + std::to_string(index) + " is outside the domain [0, " + std::to_string(size()) + ")", "coord");
  } else {
    if (!coord_in_shape(coord, s)) fail(rule::kCoordInDomain, "coordinate is not in the linear layout's domain " + to_string(s), "coord");
    index = crd2idx(coord, s);
  }
  return (*this)(index);
}

int LinearLayout::rank() const { return Echelon(flat_).rank(); }

std::optional<int64_t> LinearLayout::kernel_witness() const {
  const std::vector<int64_t> k = reduced(Echelon(flat_).kernel);
  if (k.empty()) return std::nullopt;
  return k.back();  // the row with the lowest lead: the smallest non-zero element of the kernel
}

int64_t LinearLayout::max_value() const {
  int64_t x = 0;
  for (int64_t r : reduced(flat_)) x ^= r;  // every lead bit set, each by its own row
  return x;
}

LinearLayout compose(const LinearLayout& inner, const LinearLayout& outer) {
  std::vector<std::string> a = out_names(inner), b = in_names(outer);
  std::vector<std::string> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  if (sa != sb)
    fail(rule::kLinearComposeDims, "compose(inner, outer): inner's out-dims " + dim_list(a) + " are outer's in-dims " + dim_list(b) + " (in any order)");
  std::vector<int> in_off(outer.ins().size());  // where each outer in-dim's bits start in its flat index
  for (size_t i = 1; i < outer.ins().size(); ++i) in_off[i] = in_off[i - 1] + outer.in_dim_bits(i - 1);
  std::vector<size_t> where(a.size());  // inner out-dim d is outer in-dim where[d]
  for (size_t d = 0; d < a.size(); ++d) {
    where[d] = static_cast<size_t>(std::find(b.begin(), b.end(), a[d]) - b.begin());
    if (inner.outs()[d].size > (int64_t{1} << outer.in_dim_bits(where[d])))
      fail(rule::kLinearComposeDims, "compose(inner, outer): inner's out-dim '" + a[d] + "' has size " + std::to_string(inner.outs()[d].size) +
                                         ", larger than outer's in-dim of size " + std::to_string(int64_t{1} << outer.in_dim_bits(where[d])));
  }
  std::vector<LinearInDim> ins;
  for (const LinearInDim& d : inner.ins()) {
    LinearInDim r{d.name, {}};
    for (const std::vector<int64_t>& v : d.bases) {
      int64_t index = 0;
      for (size_t o = 0; o < v.size(); ++o) index |= v[o] << in_off[where[o]];
      r.bases.push_back(split_value(outer(index), outer.outs()));
    }
    ins.push_back(std::move(r));
  }
  return LinearLayout(std::move(ins), outer.outs());
}

LinearLayout pseudo_invert(const LinearLayout& l) {
  const Echelon e(l.flat_bases());
  if (e.rank() != l.out_bits())
    fail(rule::kLinearNotSurjective, "pseudo_invert needs a surjective layout: the image has rank " + std::to_string(e.rank()) + ", the output " +
                                         std::to_string(l.out_bits()) + " bits");
  const std::vector<int64_t> kernel = reduced(e.kernel);
  std::vector<LinearOutDim> outs;  // the inverse's out-dims are l's in-dims
  for (size_t i = 0; i < l.ins().size(); ++i) outs.push_back({l.ins()[i].name, int64_t{1} << l.in_dim_bits(i)});
  std::vector<LinearInDim> ins;
  int bit = 0;
  for (const LinearOutDim& o : l.outs()) {
    LinearInDim d{o.name, {}};
    for (int b = 0; b < log2_of(o.size); ++b, ++bit) {
      const int64_t x = reduce_by(*e.solve(int64_t{1} << bit), kernel);  // the smallest preimage of the unit value
      std::vector<int64_t> v;
      int shift = 0;
      for (size_t i = 0; i < l.ins().size(); ++i) {
        v.push_back((x >> shift) & ((int64_t{1} << l.in_dim_bits(i)) - 1));
        shift += l.in_dim_bits(i);
      }
      d.bases.push_back(std::move(v));
    }
    ins.push_back(std::move(d));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout invert(const LinearLayout& l) {
  if (!l.invertible())
    fail(rule::kLinearNotInvertible, "invert needs a surjective layout with as many input as output bits; this one has input bits " + std::to_string(l.in_bits()) +
                                         ", output bits " + std::to_string(l.out_bits()) + ", an image of rank " + std::to_string(l.rank()));
  return pseudo_invert(l);
}

namespace {
// Triton's supremum of two ordered name lists, biased towards the first.
std::vector<std::string> supremum(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& what) {
  std::vector<std::string> out;
  size_t j = 0;
  auto conflict = [&] {
    fail(rule::kLinearDimOrder, "product: the " + what + " " + dim_list(a) + " and " + dim_list(b) + " order their shared dims differently");
  };
  for (size_t i = 0; i < a.size(); ++i) {
    auto at = std::find(b.begin() + static_cast<std::ptrdiff_t>(j), b.end(), a[i]);
    if (at == b.end()) {
      if (std::find(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(j), a[i]) != b.begin() + static_cast<std::ptrdiff_t>(j)) conflict();
      out.push_back(a[i]);
      continue;
    }
    for (; b.begin() + static_cast<std::ptrdiff_t>(j) != at; ++j) {
      if (std::find(a.begin() + static_cast<std::ptrdiff_t>(i), a.end(), b[j]) != a.end()) conflict();
      out.push_back(b[j]);
    }
    out.push_back(a[i]);
    ++j;
  }
  for (; j < b.size(); ++j) {
    if (std::find(out.begin(), out.end(), b[j]) != out.end()) conflict();
    out.push_back(b[j]);
  }
  return out;
}
}  // namespace

LinearLayout product(const LinearLayout& inner, const LinearLayout& outer) {
  const std::vector<std::string> ins = supremum(in_names(inner), in_names(outer), "in-dims");
  const std::vector<std::string> outs = supremum(out_names(inner), out_names(outer), "out-dims");
  auto out_size = [](const LinearLayout& l, const std::string& n) -> int64_t {
    for (const LinearOutDim& o : l.outs())
      if (o.name == n) return o.size;
    return 1;
  };
  std::vector<LinearOutDim> rdims;
  for (const std::string& n : outs) {
    const int64_t a = out_size(inner, n), b = out_size(outer, n);
    if (log2_of(a) + log2_of(b) > kMaxLinearBits) fail(rule::kLinearTooLarge, "product: out-dim '" + n + "' would have more than 62 bits");
    rdims.push_back({n, a * b});
  }
  // A basis of `l` as a vector over the product's out-dims, scaled by `scale` (1, or the inner's size).
  auto embed = [&](const LinearLayout& l, const std::vector<int64_t>& v, bool scaled) {
    std::vector<int64_t> r(outs.size(), 0);
    for (size_t o = 0; o < l.outs().size(); ++o) {
      const size_t at = static_cast<size_t>(std::find(outs.begin(), outs.end(), l.outs()[o].name) - outs.begin());
      r[at] = v[o] * (scaled ? out_size(inner, l.outs()[o].name) : 1);
    }
    return r;
  };
  std::vector<LinearInDim> rins;
  for (const std::string& n : ins) {
    LinearInDim d{n, {}};
    for (const LinearInDim& x : inner.ins())
      if (x.name == n)
        for (const auto& v : x.bases) d.bases.push_back(embed(inner, v, false));
    for (const LinearInDim& x : outer.ins())
      if (x.name == n)
        for (const auto& v : x.bases) d.bases.push_back(embed(outer, v, true));
    rins.push_back(std::move(d));
  }
  return LinearLayout(std::move(rins), std::move(rdims));
}

LinearLayout reshape_ins(const LinearLayout& l, const std::vector<std::pair<std::string, int64_t>>& dims) {
  const auto bits = bits_of(dims, rule::kLinearReshape, "reshape_ins");
  int total = 0;
  for (const auto& [n, b] : bits) total += b;
  if (total != l.in_bits())
    fail(rule::kLinearReshape, "reshape_ins keeps the input size: the new in-dims have " + std::to_string(total) + " bits, the layout " + std::to_string(l.in_bits()));
  std::vector<std::vector<int64_t>> flat;
  for (const LinearInDim& d : l.ins())
    for (const auto& v : d.bases) flat.push_back(v);
  return LinearLayout(split_ins(flat, bits), l.outs());
}

LinearLayout reshape_outs(const LinearLayout& l, const std::vector<std::pair<std::string, int64_t>>& dims) {
  const auto bits = bits_of(dims, rule::kLinearReshape, "reshape_outs");
  int total = 0;
  std::vector<LinearOutDim> outs;
  for (const auto& [n, b] : bits) {
    total += b;
    outs.push_back({n, int64_t{1} << b});
  }
  if (total != l.out_bits())
    fail(rule::kLinearReshape, "reshape_outs keeps the output size: the new out-dims have " + std::to_string(total) + " bits, the layout " + std::to_string(l.out_bits()));
  std::vector<LinearInDim> ins;
  size_t k = 0;
  for (const LinearInDim& d : l.ins()) {
    LinearInDim r{d.name, {}};
    for (size_t b = 0; b < d.bases.size(); ++b) r.bases.push_back(split_value(l.flat_bases()[k++], outs));
    ins.push_back(std::move(r));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

namespace {
std::vector<size_t> permutation(const std::vector<std::string>& have, const std::vector<std::string>& order, const std::string& op) {
  std::vector<std::string> a = have, b = order;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) fail(rule::kLinearReshape, op + " names every dim of " + dim_list(have) + " once; got " + dim_list(order));
  std::vector<size_t> p;
  for (const std::string& n : order) p.push_back(static_cast<size_t>(std::find(have.begin(), have.end(), n) - have.begin()));
  return p;
}
}  // namespace

LinearLayout transpose_ins(const LinearLayout& l, const std::vector<std::string>& order) {
  std::vector<LinearInDim> ins;
  for (size_t i : permutation(in_names(l), order, "transpose_ins")) ins.push_back(l.ins()[i]);
  return LinearLayout(std::move(ins), l.outs());
}

LinearLayout transpose_outs(const LinearLayout& l, const std::vector<std::string>& order) {
  const std::vector<size_t> p = permutation(out_names(l), order, "transpose_outs");
  std::vector<LinearOutDim> outs;
  for (size_t i : p) outs.push_back(l.outs()[i]);
  std::vector<LinearInDim> ins;
  for (const LinearInDim& d : l.ins()) {
    LinearInDim r{d.name, {}};
    for (const auto& v : d.bases) {
      std::vector<int64_t> w;
      for (size_t i : p) w.push_back(v[i]);
      r.bases.push_back(std::move(w));
    }
    ins.push_back(std::move(r));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

// ---- conversions ----------------------------------------------------------------------------

namespace {
// The bases L(2^k) of a layout whose structure did not decide it, checked F2-linear at every index
// (L(i) = L(i - low) xor L(low), low the lowest set bit of i); linear-not-f2 names the first
// index that breaks it.
void enumerate_bases(const LayoutBase& l, int64_t n, int bits, std::vector<int64_t>& flat, int64_t& max_value) {
  if (n > kMaxEnumeration)
    fail(rule::kResourceLimit, "to_linear checks every one of the layout's " + std::to_string(n) + " points; beyond the bound " + std::to_string(kMaxEnumeration));
  std::vector<int64_t> value(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    value[static_cast<size_t>(i)] = l.apply(IntTuple(i));
    if (value[static_cast<size_t>(i)] < 0)
      fail(rule::kLinearNotF2, "index " + std::to_string(i) + " maps to the negative offset " + std::to_string(value[static_cast<size_t>(i)]) + "; a linear layout's values are >= 0");
  }
  for (int k = 0; k < bits; ++k) flat.push_back(value[static_cast<size_t>(int64_t{1} << k)]);
  if (value[0] != 0) fail(rule::kLinearNotF2, "index 0 maps to " + std::to_string(value[0]) + ", not 0: the layout is affine, not linear (an offset)");
  for (int64_t i = 1; i < n; ++i) {
    const int64_t low = i & -i;
    if (value[static_cast<size_t>(i)] != (value[static_cast<size_t>(i ^ low)] ^ value[static_cast<size_t>(low)]))
      fail(rule::kLinearNotF2, "the layout is not F2-linear: index " + std::to_string(i) + " maps to " + std::to_string(value[static_cast<size_t>(i)]) +
                                   ", the XOR of its bits' values is " + std::to_string(value[static_cast<size_t>(i ^ low)] ^ value[static_cast<size_t>(low)]) +
                                   " (a carry between modes)");
    max_value = std::max(max_value, value[static_cast<size_t>(i)]);
  }
}
}  // namespace

LinearLayout to_linear(const LayoutBase& l, const std::vector<std::pair<std::string, int64_t>>& ins,
                       const std::vector<std::pair<std::string, int64_t>>& outs) {
  std::vector<int64_t> flat;  // the flat bases: L(2^k)
  std::vector<std::pair<std::string, int>> in_bits;
  int64_t max_value = 0;
  if (l.kind() == LayoutKind::Linear) {
    const auto& x = static_cast<const LinearLayout&>(l);
    flat = x.flat_bases();
    for (size_t i = 0; i < x.ins().size(); ++i) in_bits.emplace_back(x.ins()[i].name, x.in_dim_bits(i));
    max_value = x.max_value();
  } else {
    if (l.kind() == LayoutKind::Swizzle) fail(rule::kLinearNotF2, "a swizzle alone has no domain: convert Sw<B,M,S> o 0 o LAYOUT");
    const IntTuple s = l.shape();
    if (!is_concrete(s)) fail(rule::kNeedsConcrete, "to_linear needs concrete extents; got the shape " + to_string(s));
    const int64_t n = product_int(s, "size");
    if (!power_of_two(n)) fail(rule::kLinearNotF2, "the layout has " + std::to_string(n) + " points, not a power of two");
    const int bits = log2_of(n);
    if (const auto sb = structural_bases(l); sb && sb->linear) {  // decided from the strides: no enumeration
      flat = sb->bases;
      for (int64_t r : reduced(flat)) max_value ^= r;
    } else {
      enumerate_bases(l, n, bits, flat, max_value);
    }
    if (s.is_tuple()) {  // one in-dim per top-level mode
      for (size_t m = 0; m < s.len(); ++m) {
        const int64_t e = product_int(s[m], "size");
        if (!power_of_two(e)) fail(rule::kLinearNotF2, "mode " + std::to_string(m) + " has " + std::to_string(e) + " points, not a power of two (give the in-dims with --ins)");
        in_bits.emplace_back("in" + std::to_string(m), log2_of(e));
      }
    } else {
      in_bits.emplace_back("in0", bits);
    }
  }
  if (!ins.empty()) {
    in_bits = bits_of(ins, rule::kLinearSizePow2, "the in-dims");
    int total = 0;
    for (const auto& [n, b] : in_bits) total += b;
    if (total != static_cast<int>(flat.size()))
      fail(rule::kLinearReshape, "the in-dims have " + std::to_string(total) + " bits together; the layout has " + std::to_string(flat.size()) + " input bits");
  }
  std::vector<LinearOutDim> rout;
  if (outs.empty()) {
    int bits = 0;
    while (bits < kMaxLinearBits && (int64_t{1} << bits) <= max_value) ++bits;
    rout.push_back({"offset", int64_t{1} << bits});
  } else {
    int bits = 0;
    for (const auto& [n, b] : bits_of(outs, rule::kLinearSizePow2, "the out-dims")) {
      rout.push_back({n, int64_t{1} << b});
      bits += b;
    }
    if (bits < kMaxLinearBits && max_value >= (int64_t{1} << bits))
      fail(rule::kLinearBasisRange, "the layout reaches the value " + std::to_string(max_value) + ", past the out-dims' total size " + std::to_string(int64_t{1} << bits));
  }
  std::vector<std::vector<int64_t>> vectors;
  for (int64_t f : flat) vectors.push_back(split_value(f, rout));
  return LinearLayout(split_ins(vectors, in_bits), std::move(rout));
}

namespace {
// A plain layout of the given flat bases, one mode per in-dim, when their bits are disjoint.
std::optional<Layout> disjoint_layout(const LinearLayout& l, const std::vector<int64_t>& flat) {
  int64_t seen = 0;
  for (int64_t f : flat) {
    if (seen & f) return std::nullopt;
    seen |= f;
  }
  std::vector<Layout> modes;
  size_t k = 0;
  for (size_t i = 0; i < l.ins().size(); ++i) {
    std::vector<IntTuple> shape, stride;
    for (int b = 0; b < l.in_dim_bits(i); ++b) {
      shape.emplace_back(2);
      stride.emplace_back(flat[k++]);
    }
    if (shape.empty()) modes.push_back(Layout(IntTuple(1), IntTuple(0)));
    else modes.push_back(coalesce(Layout(IntTuple::tuple(shape), IntTuple::tuple(stride))));
  }
  if (modes.size() == 1) return modes[0];
  if (modes.empty()) return Layout(IntTuple(1), IntTuple(0));
  return make_layout(modes);
}
}  // namespace

LayoutPtr to_cute(const LinearLayout& l) {
  if (auto p = disjoint_layout(l, l.flat_bases())) return std::make_shared<Layout>(*p);
  const int n = l.out_bits();
  for (int b = 1; b <= n; ++b)
    for (int m = 0; m + 2 * b <= n; ++m)
      for (int a = b; m + a + b <= n; ++a)
        for (int s : {a, -a}) {
          const Swizzle sw(b, m, s);
          std::vector<int64_t> flat;
          for (int64_t f : l.flat_bases()) flat.push_back(sw(f));  // sw is its own inverse: l = sw o (sw o l)
          if (auto p = disjoint_layout(l, flat)) return std::make_shared<ComposedLayout>(std::make_shared<Swizzle>(sw), 0, std::make_shared<Layout>(*p));
        }
  const auto& f = l.flat_bases();
  std::string why;
  for (size_t i = 0; i < f.size() && why.empty(); ++i)
    for (size_t j = i + 1; j < f.size(); ++j)
      if (f[i] & f[j]) {
        why = "input bits " + std::to_string(i) + " and " + std::to_string(j) + " map to " + std::to_string(f[i]) + " and " + std::to_string(f[j]) + ", which share bits";
        break;
      }
  fail(rule::kLinearNotCute, "no CuTe layout has this function: a shape:stride layout adds its modes' values, which equals their XOR only when the bases' bits are disjoint (" +
                                 why + "), and no single swizzle Sw<B,M,S> separates them");
}

// ---- text and JSON ----------------------------------------------------------------------------

std::string to_string(const LinearLayout& l) {
  std::string s = "linear[";
  for (size_t i = 0; i < l.ins().size(); ++i) {
    s += (i ? ", " : "") + l.ins()[i].name + "=[";
    for (size_t b = 0; b < l.ins()[i].bases.size(); ++b) {
      s += b ? ",(" : "(";
      for (size_t o = 0; o < l.ins()[i].bases[b].size(); ++o) s += (o ? "," : "") + std::to_string(l.ins()[i].bases[b][o]);
      s += ")";
    }
    s += "]";
  }
  s += l.ins().empty() ? "-> " : " -> ";
  for (size_t o = 0; o < l.outs().size(); ++o) s += (o ? ", " : "") + l.outs()[o].name + "=" + std::to_string(l.outs()[o].size);
  return s + "]";
}

namespace {
struct Cursor {
  std::string_view s;
  size_t pos = 0;
  [[noreturn]] void error(const std::string& what) const {
    fail(rule::in(rule::kParseError, "§2"), "linear layout: " + what + " at offset " + std::to_string(pos) + " in '" + std::string(s.substr(0, 200)) + "'");
  }
  void blank() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == '\n')) ++pos;
  }
  bool eat(std::string_view t) {
    blank();
    if (s.substr(pos, t.size()) != t) return false;
    pos += t.size();
    return true;
  }
  void expect(std::string_view t) {
    if (!eat(t)) error("expected '" + std::string(t) + "'");
  }
  bool at(std::string_view t) {
    blank();
    return s.substr(pos, t.size()) == t;
  }
  std::string name() {
    blank();
    const size_t b = pos;
    while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_' || s[pos] == '.')) ++pos;
    if (b == pos) error("expected a dim name");
    return std::string(s.substr(b, pos - b));
  }
  int64_t number() {
    blank();
    const size_t b = pos;
    int64_t v = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[pos] - '0', &v))
        fail(rule::kIntLiteralRange, "an integer of the linear layout does not fit int64");
      ++pos;
    }
    if (b == pos) error("expected a non-negative integer");
    return v;
  }
  std::vector<int64_t> vector() {
    std::vector<int64_t> v;
    if (!eat("(")) return {number()};  // one out-dim: a bare integer
    if (eat(")")) return v;
    do v.push_back(number());
    while (eat(","));
    expect(")");
    return v;
  }
  void finish() {
    blank();
    if (pos != s.size()) error("unexpected text after the layout");
  }
};

constexpr size_t kMaxLinearText = 1 << 20;

LinearLayout parse_one_line(Cursor& c) {
  c.expect("linear");
  c.expect("[");
  std::vector<LinearInDim> ins;
  if (!c.at("->")) do {
      LinearInDim d{c.name(), {}};
      c.expect("=");
      c.expect("[");
      if (!c.eat("]")) {
        do d.bases.push_back(c.vector());
        while (c.eat(","));
        c.expect("]");
      }
      ins.push_back(std::move(d));
      if (ins.size() > static_cast<size_t>(kMaxLinearBits)) c.error("more in-dims than a linear layout has bits");
    } while (c.eat(","));
  c.expect("->");
  std::vector<LinearOutDim> outs;
  if (!c.at("]")) do {
      LinearOutDim o{c.name(), 0};
      c.expect("=");
      o.size = c.number();
      outs.push_back(o);
      if (outs.size() > static_cast<size_t>(kMaxLinearBits)) c.error("more out-dims than a linear layout has bits");
    } while (c.eat(","));
  c.expect("]");
  c.finish();
  return LinearLayout(std::move(ins), std::move(outs));
}

// Triton's LinearLayout::toString: " - NAME=1 -> (v, ...)" then "   NAME=2 -> ..." per in-dim
// (" - NAME is a size 1 dimension" for one without bases), then
// "where out dims are: [NAME (size N), ...]".
LinearLayout parse_triton_print(Cursor& c) {
  std::vector<LinearInDim> ins;
  while (c.eat("-")) {
    LinearInDim d{c.name(), {}};
    if (c.eat("is")) {
      c.expect("a");
      c.expect("size");
      if (c.number() != 1) c.error("'is a size N dimension' is printed for N = 1 only");
      c.expect("dimension");
      ins.push_back(std::move(d));
      continue;
    }
    for (;;) {
      c.expect("=");
      const int64_t key = c.number();
      if (key != int64_t{1} << std::min<size_t>(d.bases.size(), 62))
        c.error("basis " + std::to_string(d.bases.size()) + " of '" + d.name + "' is printed as " + d.name + "=" + std::to_string(int64_t{1} << std::min<size_t>(d.bases.size(), 62)));
      c.expect("->");
      d.bases.push_back(c.vector());
      if (d.bases.size() > static_cast<size_t>(kMaxLinearBits)) c.error("more bases than a linear layout has bits");
      const size_t save = c.pos;
      if (c.at("-") || c.at("where")) break;
      if (c.name() != d.name) {
        c.pos = save;
        c.error("expected the next basis of '" + d.name + "'");
      }
    }
    ins.push_back(std::move(d));
    if (ins.size() > static_cast<size_t>(kMaxLinearBits)) c.error("more in-dims than a linear layout has bits");
  }
  c.expect("where");
  c.expect("out");
  c.expect("dims");
  c.expect("are");
  c.expect(":");
  c.expect("[");
  std::vector<LinearOutDim> outs;
  if (!c.at("]")) do {
      LinearOutDim o{c.name(), 0};
      c.expect("(");
      c.expect("size");
      o.size = c.number();
      c.expect(")");
      outs.push_back(o);
      if (outs.size() > static_cast<size_t>(kMaxLinearBits)) c.error("more out-dims than a linear layout has bits");
    } while (c.eat(","));
  c.expect("]");
  c.finish();
  return LinearLayout(std::move(ins), std::move(outs));
}
}  // namespace

bool is_linear_text(std::string_view text) {
  const size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return false;
  const std::string_view t = text.substr(b);
  if (t.substr(0, 6) == "linear") {
    const size_t p = t.find_first_not_of(" \t", 6);
    return p != std::string_view::npos && t[p] == '[';
  }
  return t[0] == '-' && t.find("where out dims are") != std::string_view::npos;
}

LinearLayout parse_linear_layout(std::string_view text) {
  if (text.size() > kMaxLinearText) fail(rule::kExpressionTooLarge, "a linear layout's text is at most 1 MiB");
  Cursor c{text};
  if (c.at("linear")) return parse_one_line(c);
  return parse_triton_print(c);
}

Json linear_to_json(const LinearLayout& l) {
  Json bases = Json::array(), outs = Json::array();
  for (const LinearInDim& d : l.ins()) bases.push_back(Json::array({d.name, d.bases}));
  for (const LinearOutDim& o : l.outs()) outs.push_back(Json::array({o.name, o.size}));
  return Json{{"kind", "linear"}, {"bases", bases}, {"out_dims", outs}};
}

LinearLayout linear_from_json(const Json& j) {
  auto bad = [](const std::string& m) { fail(rule::kJsonType, "a linear layout: " + m); };
  if (!j.contains("bases") || !j["bases"].is_array()) bad("\"bases\" is an array of [in-dim name, [basis vector, ...]] pairs");
  if (!j.contains("out_dims") || !j["out_dims"].is_array()) bad("\"out_dims\" is an array of [out-dim name, size] pairs");
  if (j["bases"].size() > static_cast<size_t>(kMaxLinearBits) || j["out_dims"].size() > static_cast<size_t>(kMaxLinearBits))
    fail(rule::kLinearTooLarge, "a linear layout has at most 62 in-dims and 62 out-dims");
  std::vector<LinearInDim> ins;
  for (const Json& e : j["bases"]) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_array()) bad("each entry of \"bases\" is [name, [[v, ...], ...]]");
    if (e[1].size() > static_cast<size_t>(kMaxLinearBits)) fail(rule::kLinearTooLarge, "an in-dim has at most 62 bases");
    LinearInDim d{e[0].get<std::string>(), {}};
    for (const Json& v : e[1]) {
      if (!v.is_array() || v.size() > static_cast<size_t>(kMaxLinearBits)) bad("a basis vector is an array of integers, one per out-dim");
      std::vector<int64_t> w;
      for (const Json& x : v) {
        if (!x.is_number_integer() || (x.is_number_unsigned() && x.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) bad("a basis entry is an integer");
        w.push_back(x.get<int64_t>());
      }
      d.bases.push_back(std::move(w));
    }
    ins.push_back(std::move(d));
  }
  std::vector<LinearOutDim> outs;
  for (const Json& e : j["out_dims"]) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number_integer() ||
        (e[1].is_number_unsigned() && e[1].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)))
      bad("each entry of \"out_dims\" is [name, size]");
    outs.push_back({e[0].get<std::string>(), e[1].get<int64_t>()});
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

std::vector<std::pair<std::string, int64_t>> parse_dim_sizes(std::string_view text) {
  std::vector<std::pair<std::string, int64_t>> out;
  Cursor c{text};
  c.blank();
  if (c.pos == text.size()) return out;
  do {
    std::string n = c.name();
    c.expect("=");
    out.emplace_back(std::move(n), c.number());
    if (out.size() > static_cast<size_t>(kMaxLinearBits)) c.error("more dims than a linear layout has bits");
  } while (c.eat(","));
  c.finish();
  return out;
}

}  // namespace tfspec
