// Check 2, agreement (spec/KERNEL.md): what the shared-to-register copy really delivers into each
// register slot, against what the tiled MMA's A/B layout expects there. The delivery follows the
// hardware: a source access reads `vector` consecutive offsets from the address of its first
// value (ldmatrix reads 16 contiguous bytes per row address), and the atom's dst layout says
// which register of which thread each position lands in.
#include <algorithm>

#include "s2r.hpp"
#include "tfspec/kernel/check.hpp"

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
  if (p.epilogue && p.epilogue_from_accumulators) out.push_back(epilogue_agreement(p));
}

}  // namespace tfspec::kernel
