// Each Triton encoding as a linear layout, derived from its definition (spec/TRITON.md §2: the
// derivations in our words). A distributed layout is built as bases per in-dim (register, lane,
// warp) over the tensor's dims, each in-dim's bits taking the next powers of two of the dims it
// walks (`covered`), then fitted to the shape (§2.1): repeated in registers where the encoding's
// tile is smaller, clamped where it is larger.
#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "tfspec/frontends/triton/encoding.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::triton {
namespace {

using Basis = std::vector<int64_t>;

struct Bases {
  std::vector<Basis> reg, lane, warp, offset;
  std::vector<int> covered;  // log2 of the extent each dim's bases reach so far
  explicit Bases(size_t rank) : covered(rank, 0) {}

  // `count` more bits along dim d (count a power of two): e_d * 2^covered[d], 2^(covered[d]+1), ...
  void walk(std::vector<Basis>& in, size_t d, int64_t count) {
    for (int64_t k = 1; k < count; k *= 2) {
      if (covered[d] >= 62) fail(rule::kTritonInput, "triton encoding (§2): a layout reaching past 2^62 elements along dim " + std::to_string(d));
      Basis b(covered.size(), 0);
      b[d] = int64_t{1} << covered[d]++;
      in.push_back(b);
    }
  }
  void broadcast(std::vector<Basis>& in, int64_t count) {
    for (int64_t k = 1; k < count; k *= 2) in.emplace_back(covered.size(), 0);
  }
};

void require_pow2(const Encoding& e, const std::vector<int64_t>& v, const char* what) {
  for (int64_t x : v)
    if (x < 1 || !std::has_single_bit(static_cast<uint64_t>(x)))
      fail(rule::kTritonInput, std::string("triton encoding (§2): ") + what + " holds " + std::to_string(x) + ", not a power of two: " + e.text);
}

void require_rank(const Encoding& e, const std::vector<int64_t>& v, size_t rank, const char* what) {
  if (v.size() != rank)
    fail(rule::kTritonInput, std::string("triton encoding (§2): ") + what + " has " + std::to_string(v.size()) + " entries for a rank-" + std::to_string(rank) + " tensor: " + e.text);
}

// `order` names each dim once (a permutation of 0 .. rank-1).
void require_order(const Encoding& e, const std::vector<int64_t>& order, size_t rank) {
  require_rank(e, order, rank, "order");
  std::vector<bool> seen(rank, false);
  for (int64_t d : order) {
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(d)])
      fail(rule::kTritonInput, "triton encoding (§2): order must name each of the " + std::to_string(rank) + " dims once: " + e.text);
    seen[static_cast<size_t>(d)] = true;
  }
}

// §2.1: repeat the tile in registers along each dim (in `order`, fastest first) up to the shape,
// then clamp: a basis entry reaching past the shape is broadcast (zeroed); a register basis that
// reaches past it is dropped for a blocked layout (its values would repeat), zeroed for an MMA tile
// (the instruction's register slots stay, as Triton keeps them).
void fit(Bases& b, const std::vector<int64_t>& shape, const std::vector<int64_t>& order, bool drop_registers) {
  for (int64_t d : order)
    while ((int64_t{1} << b.covered[d]) < shape[d]) b.walk(b.reg, static_cast<size_t>(d), 2);
  auto outside = [&](const Basis& v) {
    for (size_t d = 0; d < v.size(); ++d)
      if (v[d] >= shape[d]) return true;
    return false;
  };
  if (drop_registers) std::erase_if(b.reg, outside);
  for (auto* in : {&b.reg, &b.lane, &b.warp})
    for (Basis& v : *in)
      for (size_t d = 0; d < v.size(); ++d)
        if (v[d] >= shape[d]) v[d] = 0;
}

std::vector<int64_t> matrix_order(size_t rank) {  // the last dim fastest: [rank-1, ..., 0]
  std::vector<int64_t> o;
  for (size_t d = rank; d-- > 0;) o.push_back(static_cast<int64_t>(d));
  return o;
}

Bases blocked(const Encoding& e, const std::vector<int64_t>& shape) {
  const auto spt = e.get_ints("sizePerThread"), tpw = e.get_ints("threadsPerWarp"), wpc = e.get_ints("warpsPerCTA"), order = e.get_ints("order");
  for (const auto* v : {&spt, &tpw, &wpc, &order}) require_rank(e, *v, shape.size(), "a blocked parameter");
  for (const auto* v : {&spt, &tpw, &wpc}) require_pow2(e, *v, "a blocked parameter");
  require_order(e, order, shape.size());
  Bases b(shape.size());
  for (int64_t d : order) b.walk(b.reg, static_cast<size_t>(d), spt[d]);
  for (int64_t d : order) b.walk(b.lane, static_cast<size_t>(d), tpw[d]);
  for (int64_t d : order) b.walk(b.warp, static_cast<size_t>(d), wpc[d]);
  fit(b, shape, order, true);
  return b;
}

// §2.3 the order the warps walk the dims: mma.sync's (v2) n first; wgmma's (v3) m first, a warp
// group being four consecutive warps down m (Triton 3.9's layouts of warpsPerCTA = [4, 2] agree).
std::vector<int64_t> warp_order(int64_t version) { return version == 3 ? std::vector<int64_t>{0, 1} : matrix_order(2); }

// §2.3: one warp's 16 x 8 tile of mma.sync (v2) or 16 x N of wgmma (v3), then the warps.
Bases mma(const Encoding& e, const std::vector<int64_t>& shape) {
  const int64_t version = e.get_int("versionMajor");
  const auto wpc = e.get_ints("warpsPerCTA"), instr = e.get_ints("instrShape");
  if (shape.size() != 2 || (version != 2 && version != 3))
    fail(rule::kTritonEncoding, "triton encoding (§2.3): tfspec derives nvidia_mma versions 2 and 3 on rank-2 tensors, not " + e.text);
  require_rank(e, wpc, 2, "warpsPerCTA");
  require_pow2(e, wpc, "warpsPerCTA");
  Bases b(2);
  b.walk(b.reg, 1, 2);   // the accumulator pair: n, n + 1
  b.walk(b.lane, 1, 4);  // lane % 4: n / 2
  b.walk(b.lane, 0, 8);  // lane / 4: m
  b.walk(b.reg, 0, 2);   // m + 8
  if (version == 3) {
    if (instr.size() != 3 || instr[1] < 8 || !std::has_single_bit(static_cast<uint64_t>(instr[1])))
      fail(rule::kTritonInput, "triton encoding (§2.3): a version-3 instrShape is [M, N, K] with N a power of two >= 8: " + e.text);
    b.walk(b.reg, 1, instr[1] / 8);  // wgmma: the N / 8 column blocks of one warp
  }  // wgmma: the N / 8 column blocks of one warp
  for (int64_t d : warp_order(version)) b.walk(b.warp, static_cast<size_t>(d), wpc[d]);
  fit(b, shape, matrix_order(2), false);
  return b;
}

// §2.4: an mma.sync operand. kWidth consecutive k per thread, four lanes along k, eight along the
// other dim; A has two 8-row halves; both have two k halves. The other operand's warps broadcast.
Bases dot_operand(const Encoding& e, const std::vector<int64_t>& shape) {
  const Encoding& parent = e.get_enc("parent");
  const int64_t idx = e.get_int("opIdx"), kw = e.get_int("kWidth");
  if (!derivable(e) || shape.size() != 2)
    fail(rule::kTritonEncoding, "triton encoding (§2.4): tfspec derives dot_op with an nvidia_mma version 2 parent (or version 3 for A, wgmma's register operand) on rank-2 tensors, not " + e.text);
  require_pow2(e, {kw}, "kWidth");
  const auto wpc = parent.get_ints("warpsPerCTA");
  require_rank(parent, wpc, 2, "warpsPerCTA");
  require_pow2(parent, wpc, "warpsPerCTA");
  const size_t k = idx == 0 ? 1 : 0, other = 1 - k;
  Bases b(2);
  b.walk(b.reg, k, kw);
  b.walk(b.lane, k, 4);
  b.walk(b.lane, other, 8);
  if (idx == 0) b.walk(b.reg, other, 2);
  b.walk(b.reg, k, 2);
  for (int64_t d : warp_order(parent.get_int("versionMajor"))) {
    if (static_cast<size_t>(d) == other) b.walk(b.warp, other, wpc[d]);
    else b.broadcast(b.warp, wpc[d]);
  }
  fit(b, shape, {static_cast<int64_t>(k), static_cast<int64_t>(other)}, false);
  return b;
}

Bases distributed(const Encoding& e, const std::vector<int64_t>& shape);

// §2.2: the parent on the shape with the sliced dim put back at size 1, that dim then dropped.
Bases slice(const Encoding& e, const std::vector<int64_t>& shape) {
  const int64_t dim = e.get_int("dim");
  if (dim < 0 || dim > static_cast<int64_t>(shape.size())) fail(rule::kTritonInput, "triton encoding (§2.2): slice dim " + std::to_string(dim) + " out of range: " + e.text);
  std::vector<int64_t> parent_shape = shape;
  parent_shape.insert(parent_shape.begin() + dim, 1);
  Bases p = distributed(e.get_enc("parent"), parent_shape);
  Bases b(shape.size());
  for (auto [from, to] : {std::pair{&p.reg, &b.reg}, {&p.lane, &b.lane}, {&p.warp, &b.warp}})
    for (Basis v : *from) {
      v.erase(v.begin() + dim);
      // A register of the sliced dim is no register of the slice; lanes and warps broadcast.
      if (from != &p.reg || std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 0; })) to->push_back(v);
    }
  return b;
}

Bases linear_encoding(const Encoding& e, const std::vector<int64_t>& shape) {
  Bases b(shape.size());
  for (auto [key, in] : {std::pair{"register", &b.reg}, {"lane", &b.lane}, {"warp", &b.warp}}) {
    auto it = e.params.find(key);
    if (it == e.params.end()) continue;
    for (const AttrValue& v : it->second.list) {
      Basis x;
      for (const AttrValue& c : v.list) x.push_back(c.i);
      require_rank(e, x, shape.size(), "a linear basis");
      in->push_back(x);
    }
  }
  return b;
}

Bases distributed(const Encoding& e, const std::vector<int64_t>& shape) {
  if (e.kind == "blocked") return blocked(e, shape);
  if (e.kind == "slice") return slice(e, shape);
  if (e.kind == "nvidia_mma") return mma(e, shape);
  if (e.kind == "dot_op") return dot_operand(e, shape);
  if (e.kind == "linear") return linear_encoding(e, shape);
  fail(rule::kTritonEncoding, "triton encoding (§2): tfspec does not derive #ttg." + e.kind + " (listed, not guessed): " + e.text);
}

// §2.5: a swizzled row of `cols` elements: row r's vec-element groups XOR (r / perPhase) % maxPhase.
void swizzled_rows(Bases& b, size_t col, size_t row, int64_t cols, int64_t rows, int64_t vec, int64_t per_phase, int64_t max_phase) {
  b.walk(b.offset, col, cols);
  for (int64_t r = 1; r < rows; r *= 2) {
    Basis v(b.covered.size(), 0);
    v[row] = r;
    v[col] = (vec * ((r / per_phase) % max_phase)) % cols;
    b.offset.push_back(v);
  }
  b.covered[row] = std::countr_zero(static_cast<uint64_t>(rows));
}

Bases shared(const Encoding& e, const std::vector<int64_t>& shape) {
  if (shape.size() != 2) fail(rule::kTritonEncoding, "triton encoding (§2.5): tfspec derives shared encodings on rank-2 allocations, not rank " + std::to_string(shape.size()));
  require_pow2(e, shape, "the allocation shape");
  Bases b(2);
  if (e.kind == "swizzled_shared") {
    const auto order = e.get_ints("order");
    require_order(e, order, 2);
    require_pow2(e, {e.get_int("vec"), e.get_int("perPhase"), e.get_int("maxPhase")}, "vec, perPhase or maxPhase");
    const size_t col = static_cast<size_t>(order[0]), row = static_cast<size_t>(order[1]);
    swizzled_rows(b, col, row, shape[col], shape[row], e.get_int("vec"), e.get_int("perPhase"), e.get_int("maxPhase"));
    return b;
  }
  if (e.kind != "nvmma_shared" || (e.params.count("fp4Padded") && e.get_int("fp4Padded")))
    fail(rule::kTritonEncoding, "triton encoding (§2): tfspec does not derive #ttg." + e.kind + " (listed, not guessed): " + e.text);
  // §2.6: rows of swizzlingByteWidth bytes, swizzled in 16-byte groups, tiled along the contiguous dim.
  const int64_t swizzle = e.get_int("swizzlingByteWidth"), bits = e.get_int("elementBitWidth");
  if (!(swizzle == 0 || swizzle == 32 || swizzle == 64 || swizzle == 128) || !(bits == 8 || bits == 16 || bits == 32 || bits == 64))
    fail(rule::kTritonInput, "triton encoding (§2.6): swizzlingByteWidth is 0, 32, 64 or 128 and elementBitWidth 8, 16, 32 or 64: " + e.text);
  const size_t col = e.params.count("transposed") && e.get_int("transposed") ? 0 : 1, row = 1 - col;
  const int64_t tile = swizzle == 0 ? shape[col] : std::min(shape[col], swizzle * 8 / bits);
  if (swizzle == 0) swizzled_rows(b, col, row, tile, shape[row], 1, 1, 1);
  else swizzled_rows(b, col, row, tile, shape[row], 128 / bits, 128 / swizzle, swizzle / 16);
  b.covered[col] = std::countr_zero(static_cast<uint64_t>(tile));
  b.walk(b.offset, col, shape[col] / tile);
  return b;
}


}  // namespace

// §2.7: a CTA layout over more than one CTA of a cluster (`CTAsPerCGA` or `CTASplitNum` past 1,
// Triton's num_ctas > 1; a `#ttg.linear` with `block` bases) splits the tensor across CTAs, which
// the derivations of one CTA's layout do not model: such an encoding is listed, never read as if
// one CTA held the whole tensor.
bool one_cta(const Encoding& e) {
  for (const char* key : {"CTAsPerCGA", "CTASplitNum"}) {
    const auto it = e.params.find(key);
    if (it == e.params.end()) continue;
    for (const AttrValue& v : it->second.list)
      if (v.kind != AttrValue::Kind::Int || v.i != 1) return false;
  }
  const auto block = e.params.find("block");
  return block == e.params.end() || block->second.list.empty();
}

// §2.7: the attributes each derived encoding is read from; one tfspec does not read (a newer
// Triton's, or a hand edit) may change the layout, so the encoding is listed, not derived.
std::optional<std::string> unread_attribute(const Encoding& e) {
  static const std::set<std::string> cta{"CTAsPerCGA", "CTASplitNum", "CTAOrder"};
  static const std::map<std::string, std::set<std::string>> known{
      {"blocked", {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"}},
      {"slice", {"dim", "parent"}},
      {"nvidia_mma", {"versionMajor", "versionMinor", "warpsPerCTA", "instrShape"}},
      {"dot_op", {"opIdx", "parent", "kWidth"}},
      {"linear", {"register", "lane", "warp", "block"}},
      {"swizzled_shared", {"vec", "perPhase", "maxPhase", "order"}},
      {"nvmma_shared", {"swizzlingByteWidth", "transposed", "elementBitWidth", "fp4Padded"}}};
  const auto it = known.find(e.kind);
  if (it == known.end()) return std::nullopt;
  for (const auto& [key, value] : e.params)
    if (!it->second.count(key) && !cta.count(key)) return key;
  return std::nullopt;
}

bool derivable(const Encoding& e) {
  if (!one_cta(e) || unread_attribute(e)) return false;
  if (e.kind == "blocked" || e.kind == "linear" || e.kind == "swizzled_shared") return true;
  if (e.kind == "slice") return derivable(e.get_enc("parent"));
  if (e.kind == "nvidia_mma") return e.params.count("versionMajor") && (e.get_int("versionMajor") == 2 || e.get_int("versionMajor") == 3);
  if (e.kind == "dot_op") {  // §2.4: mma.sync's operands; wgmma's A in registers is laid out as mma.sync's A
    const Encoding& p = e.get_enc("parent");
    if (!one_cta(p) || unread_attribute(p)) return false;
    const int64_t idx = e.get_int("opIdx"), version = p.kind == "nvidia_mma" && p.params.count("versionMajor") ? p.get_int("versionMajor") : 0;
    return (version == 2 && (idx == 0 || idx == 1)) || (version == 3 && idx == 0);
  }
  return e.kind == "nvmma_shared" && !(e.params.count("fp4Padded") && e.get_int("fp4Padded"));
}

LinearLayout to_linear(const Encoding& e, const std::vector<int64_t>& shape, int64_t threads_per_warp) {
  std::vector<LinearOutDim> outs;
  for (size_t d = 0; d < shape.size(); ++d) outs.push_back({"dim" + std::to_string(d), shape[d]});
  require_pow2(e, shape, "the tensor shape");
  if (e.shared()) {
    const Bases b = shared(e, shape);
    if (b.offset.size() > 24)
      fail(rule::kResourceLimit, "triton encoding (§2): a shared allocation of 2^" + std::to_string(b.offset.size()) + " elements: past the 2^24 a CTA's buffer is checked at: " + e.text);
    return LinearLayout({{"offset", b.offset}, {"block", {}}}, outs);
  }
  const Bases b = distributed(e, shape);
  // what the checks enumerate: a layout past 2^24 (thread, value) pairs, or past 64 warps, is no
  // CTA's tile (Triton's num-warps is at most 32)
  if (b.warp.size() > 6 || b.reg.size() + b.lane.size() + b.warp.size() > 24)
    fail(rule::kResourceLimit, "triton encoding (§2): " + std::to_string(b.reg.size()) + " register, " + std::to_string(b.lane.size()) + " lane and " +
                                   std::to_string(b.warp.size()) + " warp bits: past the 64 warps and 2^24 elements a CTA's tile is checked at: " + e.text);
  if (int64_t{1} << b.lane.size() != threads_per_warp)
    fail(rule::kTritonInput, "triton encoding (§2): " + std::to_string(int64_t{1} << b.lane.size()) + " lanes per warp, the module has " + std::to_string(threads_per_warp) + ": " + e.text);
  return LinearLayout({{"register", b.reg}, {"lane", b.lane}, {"warp", b.warp}, {"block", {}}}, outs);
}

}  // namespace tfspec::triton
