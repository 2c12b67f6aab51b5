// Check 2, agreement (spec/KERNEL.md): what the shared-to-register copy really delivers into each
// register slot, against what the tiled MMA's A/B layout expects there. The delivery follows the
// hardware: a source access reads `vector` consecutive offsets from the address of its first
// value (ldmatrix reads 16 contiguous bytes per row address), and the atom's dst layout says
// which register of which thread each position lands in.
#include <algorithm>
#include <optional>

#include "s2r.hpp"
#include "tfspec/kernel/check.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::kernel {
namespace {

// Element delivered to every source position: delivered[T * values + x], -1 outside the tile.
std::vector<int64_t> delivered(const S2rCopy& s, const SmemMap& m) {
  std::vector<int64_t> out(s.src.size(), -1);
  for (int64_t t = 0; t < s.threads; ++t)
    for (int64_t x = 0; x < s.values(); x += s.vector) {
      const size_t first = static_cast<size_t>(t * s.values() + x);
      const int64_t base = m.offset[static_cast<size_t>(s.src[first])];
      for (int64_t j = 0; j < s.vector; ++j) {
        const int64_t off = base + j;
        out[first + static_cast<size_t>(j)] = off < m.cosize ? m.element_at[static_cast<size_t>(off)] : -1;
      }
    }
  return out;
}

Finding agreement_of(const Pipeline& p, const Operand& o) {
  const std::string subject = std::string(1, o.name) + " s2r";
  const int64_t rows = o.name == 'A' ? p.bm : p.bn;
  const Partition expected = mma_partition(p, o.name);
  const S2rCopy s = derive_s2r(p, o, expected);
  const std::vector<int64_t> got = received(p, o, s, expected);
  int64_t wrong = 0;
  Finding f{"agreement", subject, Outcome::Ok, nullptr, "", Json::object()};
  for (int64_t t = 0; t < p.threads; ++t)
    for (int64_t v = 0; v < expected.values; ++v) {
      const int64_t e = got[static_cast<size_t>(t * expected.values + v)];
      if (e == expected.at(t, v) || wrong++ > 0) continue;
      const int64_t td = t % s.atom_threads, c = v / s.dst_values, vd = v % s.dst_values;
      const auto [ts, vs] = s.src_of_pos[static_cast<size_t>(s.dst_pos[static_cast<size_t>(td + s.atom_threads * vd)])];
      const std::string what = e < 0 ? "no element of the tile" : element_name(o.name, e, rows);
      f.message = "thread " + std::to_string(t) + " value " + std::to_string(v) + " receives " + what + " but the MMA's " + std::string(1, o.name) +
                  " layout expects " + element_name(o.name, expected.at(t, v), rows) + " (from source thread " + std::to_string(ts + t - td) + " value " +
                  std::to_string(c * s.src_values + vs) + ")";
      f.detail = {{"thread", t}, {"value", v}, {"expected", Json::array({expected.at(t, v) % rows, expected.at(t, v) / rows})}};
      f.detail["received"] = e < 0 ? Json(nullptr) : Json::array({e % rows, e / rows});
    }
  if (wrong == 0) {
    f.message = "every thread's " + std::to_string(expected.values) + " values arrive where the MMA expects them (" + std::to_string(s.chunks) + " " +
                (o.s2r->name.empty() ? std::string("atom") : o.s2r->name) + " per thread)";
    return f;
  }
  f.outcome = Outcome::Violation;
  f.rule = &rule::kKernelAgreement;
  f.message += "; " + std::to_string(wrong) + " of " + std::to_string(p.threads * expected.values) + " slots disagree";
  f.detail["disagreeing"] = wrong;
  return f;
}

// An epilogue storing straight from the accumulators: each thread stores exactly the C elements
// its MMA partition holds (as sets; the order is the store's own).
Finding epilogue_agreement(const Pipeline& p) {
  const Partition held = mma_partition(p, 'C'), stored = copy_partition(*p.epilogue, p.bm, p.bn);
  Finding f{"agreement", "C epilogue", Outcome::Ok, nullptr, "", Json::object()};
  for (int64_t t = 0; t < p.threads; ++t) {
    std::vector<int64_t> h(held.index.begin() + t * held.values, held.index.begin() + (t + 1) * held.values), s;
    if (t < stored.threads) s.assign(stored.index.begin() + t * stored.values, stored.index.begin() + (t + 1) * stored.values);
    std::sort(h.begin(), h.end());
    for (int64_t v = 0; v < static_cast<int64_t>(s.size()); ++v) {
      if (std::binary_search(h.begin(), h.end(), s[static_cast<size_t>(v)])) continue;
      f.outcome = Outcome::Violation;
      f.rule = &rule::kKernelAgreement;
      f.message = "thread " + std::to_string(t) + " value " + std::to_string(v) + " stores " + element_name('C', s[static_cast<size_t>(v)], p.bm) +
                  ", which its accumulators do not hold (the epilogue reads them straight from registers)";
      f.detail = {{"thread", t}, {"value", v}, {"element", Json::array({s[static_cast<size_t>(v)] % p.bm, s[static_cast<size_t>(v)] / p.bm})}};
      return f;
    }
  }
  f.message = "every thread stores only its own accumulators";
  return f;
}

// A tiled MMA of a one-value atom (UniversalFMA; CuTe's gemm for (V,M,K) x (V,N,K) fragments
// asserts one value an operand): for each k, m, n of a thread's rest indices it computes
// C(v, m, n) += A(v, m, k) B(v, n, k) (cute/algorithm/gemm.hpp). Each product must multiply A(m, k)
// by B(n, k) into C(m, n), and every (m, n, k) of the CTA tile must be computed exactly once.
// nullopt for an atom whose operands hold several values a thread (the hardware pairs those).
constexpr int64_t kMaxProducts = int64_t{1} << 22;  // the partitions' bound (2^22 pairs): a 16 MB table

std::string product_name(int64_t m, int64_t n, int64_t k) {
  return "(m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")";
}

std::optional<Finding> one_value_products(const Pipeline& p) {
  const Mma& mma = p.mma;
  if (!mma.a || !mma.b || mma.a->size() != mma.atom_threads || mma.b->size() != mma.atom_threads || mma.c.size() != mma.atom_threads) return std::nullopt;
  Finding f{"agreement", "C mma (m,n,k)", Outcome::Ok, nullptr, "", Json::object()};
  const int64_t products = checked_mul(checked_mul(p.bm, p.bn), p.bk);
  if (products > kMaxProducts) {
    f.outcome = Outcome::Undecided, f.rule = &rule::kResourceLimit;
    f.message = "not enumerated: " + std::to_string(products) + " products is beyond the check's " + std::to_string(kMaxProducts);
    return f;
  }
  const Partition a = mma_partition(p, 'A'), b = mma_partition(p, 'B'), c = mma_partition(p, 'C');
  const auto rest = [&](int which, int64_t extent, int64_t atom) { return extent / (atom * product_int(mma.atoms.shape_ref()[static_cast<size_t>(which)])); };
  const int64_t rm = rest(0, p.bm, mma.m), rn = rest(1, p.bn, mma.n), rk = rest(2, p.bk, mma.k);
  std::vector<int32_t> first(static_cast<size_t>(products), -1);  // (m + BM n) + BM BN k -> the first thread (threads <= 1024)
  for (int64_t t = 0; t < p.threads; ++t)
    for (int64_t k = 0; k < rk; ++k)
      for (int64_t n = 0; n < rn; ++n)
        for (int64_t m = 0; m < rm; ++m) {
          const int64_t ce = c.at(t, m + rm * n), ae = a.at(t, m + rm * k), be = b.at(t, n + rn * k);
          const int64_t cm = ce % p.bm, cn = ce / p.bm, am = ae % p.bm, ak = ae / p.bm, bn = be % p.bn, bk = be / p.bn;
          if (am != cm || bn != cn || ak != bk) {
            f.outcome = Outcome::Violation, f.rule = &rule::kKernelAgreement;
            f.message = "thread " + std::to_string(t) + " multiplies A" + element_name('A', ae, p.bm) + " by B" + element_name('B', be, p.bn) + " into C" +
                        element_name('C', ce, p.bm) + " (its values " + std::to_string(m + rm * k) + ", " + std::to_string(n + rn * k) + " and " + std::to_string(m + rm * n) + ")";
            f.detail = {{"thread", t}, {"A", {am, ak}}, {"B", {bn, bk}}, {"C", {cm, cn}}};
            return f;
          }
          int32_t& who = first[static_cast<size_t>(ce + p.bm * p.bn * ak)];
          if (who >= 0) {
            f.outcome = Outcome::Violation, f.rule = &rule::kKernelAgreement;
            f.message = "the product " + product_name(cm, cn, ak) + " is computed twice: by thread " + std::to_string(who) + " and by thread " + std::to_string(t);
            f.detail = {{"thread", t}, {"first_thread", who}, {"product", {cm, cn, ak}}};
            return f;
          }
          who = static_cast<int32_t>(t);
        }
  const auto missing = std::find(first.begin(), first.end(), -1);
  if (missing != first.end()) {
    const int64_t i = missing - first.begin(), e = i % (p.bm * p.bn);
    f.outcome = Outcome::Violation, f.rule = &rule::kKernelAgreement;
    f.message = std::to_string(std::count(first.begin(), first.end(), -1)) + " products are never computed, the first " + product_name(e % p.bm, e / p.bm, i / (p.bm * p.bn));
    f.detail = {{"missing", std::count(first.begin(), first.end(), -1)}, {"first_missing", {e % p.bm, e / p.bm, i / (p.bm * p.bn)}}};
    return f;
  }
  f.message = "each of the " + std::to_string(p.bm) + "x" + std::to_string(p.bn) + "x" + std::to_string(p.bk) +
              " products is computed once, by the thread holding C(m, n), from its A(m, k) and B(n, k) (C(v,m,n) += A(v,m,k) B(v,n,k) over " + std::to_string(rm) + "x" +
              std::to_string(rn) + "x" + std::to_string(rk) + " rest indices a thread)";
  f.detail = {{"products", products}};
  return f;
}

}  // namespace

std::vector<int64_t> received(const Pipeline& p, const Operand& o, const S2rCopy& s, const Partition& expected) {
  const std::vector<int64_t> got = delivered(s, smem_map(o, o.name == 'A' ? p.bm : p.bn, p.bk));
  std::vector<int64_t> out(expected.index.size());
  for (int64_t t = 0; t < p.threads; ++t) {
    const int64_t first = t - t % s.atom_threads, td = t % s.atom_threads;  // the warp's first thread
    for (int64_t v = 0; v < expected.values; ++v) {
      const int64_t c = v / s.dst_values, vd = v % s.dst_values;
      const auto [ts, vs] = s.src_of_pos[static_cast<size_t>(s.dst_pos[static_cast<size_t>(td + s.atom_threads * vd)])];
      out[static_cast<size_t>(t * expected.values + v)] = got[static_cast<size_t>((first + ts) * s.values() + c * s.src_values + vs)];
    }
  }
  return out;
}

void check_agreement(const Pipeline& p, std::vector<Finding>& out) {
  for (const Operand* o : {&p.a, &p.b}) {
    const bool from_smem = !(o->name == 'A' ? p.mma.a : p.mma.b);
    if (from_smem != !o->s2r)
      fail(rule::kKernelInput, std::string(1, o->name) + (from_smem ? ".s2r: the MMA reads this operand from shared memory; no s2r copy applies"
                                                                     : ".s2r: missing (the MMA's operand is in registers)"),
           std::string(1, o->name) + ".s2r");
    if (from_smem) {
      out.push_back(gmma_layout(p, *o));
      continue;
    }
    out.push_back(agreement_of(p, *o));
  }
  if (auto products = one_value_products(p)) out.push_back(std::move(*products));
  if (p.epilogue && p.epilogue_from_accumulators) out.push_back(epilogue_agreement(p));
}

}  // namespace tfspec::kernel
