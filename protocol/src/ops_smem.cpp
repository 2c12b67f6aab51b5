// Shared-memory access ops (extension; spec/SMEM.md): `banks` and `vector_width`.
#include "tfspec/protocol/ops.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/smem.hpp"

namespace tfspec::protocol {
namespace {

using P = ParamType;

int64_t int_arg(const Json& args, const char* name, int64_t fallback) {
  if (!args.contains(name)) return fallback;
  return require_int(inttuple_from_json(args[name]), name);
}

std::string threads_text(int64_t first, int64_t n) { return n == 1 ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(first + n - 1); }

Json vector_json(const VectorWidth& w) {
  Json j{{"elems", w.elems}, {"bytes", w.bytes}};
  if (w.next_elems) j["next"] = Json{{"elems", *w.next_elems}, {"thread", w.thread}, {"value", w.value}, {"reason", w.reason}};
  return j;
}

std::string vector_text(const VectorWidth& w) {
  std::string s = "vector width: " + std::to_string(w.elems) + (w.elems == 1 ? " element (" : " elements (") + std::to_string(w.bytes) + " bytes)";
  if (w.next_elems)
    s += "; " + std::to_string(*w.next_elems) + " fails at thread " + std::to_string(w.thread) + ", value " + std::to_string(w.value) + ": " + w.reason;
  return s + "\n";
}

Json phase_json(const PhaseCost& p) {
  Json c = Json::array();
  for (size_t i = 0; i < p.colliding.size(); ++i) c.push_back(Json{{"thread", p.colliding[i].first}, {"offset", p.colliding_offsets[i]}, {"word", p.colliding[i].second}});
  return Json{{"warp", p.warp}, {"access", p.access}, {"phase", p.phase}, {"first_thread", p.first_thread}, {"threads", p.threads},
              {"wavefronts", p.wavefronts}, {"ideal", p.ideal}, {"bank", p.bank}, {"colliding", c}};
}

std::string phase_text(const PhaseCost& p) {
  std::string s = "worst phase: warp " + std::to_string(p.warp) + ", access " + std::to_string(p.access) + ", threads " + threads_text(p.first_thread, p.threads) +
                  ": bank " + std::to_string(p.bank) + " serves " + std::to_string(p.wavefronts) + (p.wavefronts == 1 ? " word" : " words") +
                  " (ideal " + std::to_string(p.ideal) + " wavefront" + (p.ideal == 1 ? "" : "s") + ")";
  if (p.wavefronts <= p.ideal) return s + "\n";
  s += ": threads";
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < p.colliding.size() && i < kShown; ++i)
    s += (i ? ", " : " ") + std::to_string(p.colliding[i].first) + " (offset " + std::to_string(p.colliding_offsets[i]) + ", word " + std::to_string(p.colliding[i].second) + ")";
  if (p.colliding.size() > kShown) s += ", … (" + std::to_string(p.colliding.size()) + " in all)";
  return s + "\n";
}

// The shared-memory layout: tile index -> element offset. A linear layout (X2) reads in the
// direction spec/ALGEBRA.md "Direction" gives (Triton's `offset` in-dim: through its inverse), and
// the answer says which.
LayoutPtr smem_arg(const Json& a, std::string& note) { return smem_tile_to_offset(any_layout_from_json(require_arg(a, "smem")), note); }

// Issue 44: a conflict over a plain layout gets a hint toward the swizzle that removes it, found
// and checked by the same model (reference conflict_free_swizzle); none over a swizzled or linear
// one (a second swizzle over a swizzle is no CuTe layout the hint could name).
std::optional<std::pair<Json, std::string>> swizzle_hint(const Layout& tv, const LayoutBase& smem, const SmemAccess& acc) {
  if (smem.kind() != LayoutKind::Layout) return std::nullopt;
  const Layout& l = static_cast<const Layout&>(smem);
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = tv_offsets(tv, smem, threads, values);
  const auto h = conflict_free_swizzle(off, threads, values, acc, l.cosize());
  if (!h) return std::pair{Json(nullptr), std::string("hint: no Sw<B,M,S> (B <= 5, M <= 4, S <= 8) over this layout removes the conflict\n")};
  const std::string sw = "Sw<" + std::to_string(h->bits) + "," + std::to_string(h->base) + "," + std::to_string(h->shift) + ">";
  return std::pair{Json{{"swizzle", sw}, {"smem", sw + " o 0 o " + to_string(l)}, {"wavefronts", h->wavefronts}},
                   "hint: " + sw + " o 0 o " + to_string(l) + " is conflict-free (" + std::to_string(h->wavefronts) + " wavefronts, checked by this model)\n"};
}

OpResult banks_result(const Json& a) {
  const Layout tv = plain_layout_arg(a, "tv", "banks");
  std::string note;
  const LayoutPtr smem = smem_arg(a, note);
  SmemAccess acc;
  acc.elem_bytes = require_int(inttuple_from_json(require_arg(a, "elem_bytes")), "elem_bytes");
  acc.vector = int_arg(a, "vector", 1);
  acc.model.banks = int_arg(a, "banks", acc.model.banks);
  acc.model.bank_bytes = int_arg(a, "bank_bytes", acc.model.bank_bytes);
  const BankReport r = bank_conflicts(tv, *smem, acc);
  const VectorWidth w = vector_width(tv, *smem, acc.elem_bytes);
  Json j{{"conflict_free", r.conflict_free()}, {"threads", r.threads}, {"values", r.values}, {"vector", acc.vector}, {"elem_bytes", acc.elem_bytes},
         {"access_bytes", r.access_bytes}, {"accesses", r.accesses}, {"phase_threads", r.phase_threads}, {"phases", r.phases},
         {"conflicting_phases", r.conflicting_phases}, {"wavefronts", r.wavefronts}, {"ideal_wavefronts", r.ideal}, {"degree", r.degree()},
         {"vector_width", vector_json(w)}};
  if (r.worst) j["worst"] = phase_json(*r.worst);
  if (!note.empty()) j["note"] = note;
  std::string text = std::to_string(r.threads) + " threads x " + std::to_string(r.accesses) + (r.accesses == 1 ? " access" : " accesses") + " of " +
                     std::to_string(r.access_bytes) + " bytes (" + std::to_string(acc.vector) + " x " + std::to_string(acc.elem_bytes) + "), phases of " +
                     std::to_string(r.phase_threads) + " threads\n";
  text += "wavefronts " + std::to_string(r.wavefronts) + ", ideal " + std::to_string(r.ideal) + ": " +
          (r.conflict_free() ? std::string("conflict-free") : std::to_string(r.degree()) + "-way bank conflict (" + std::to_string(r.conflicting_phases) + " of " +
                                                                   std::to_string(r.phases) + " phases conflict)") + "\n";
  if (r.worst && !r.conflict_free()) {
    text += phase_text(*r.worst);
    if (const auto hint = swizzle_hint(tv, *smem, acc)) {
      j["swizzle_hint"] = hint->first;
      text += hint->second;
    }
  }
  text += vector_text(w);
  if (!note.empty()) text = "note: " + note + "\n" + text;
  return {j, text, r.conflict_free() ? 0 : 1};
}

}  // namespace

void register_smem_ops(OpRegistry& r) {
  const std::vector<Param> access = {{"tv", P::Layout}, {"smem", P::AnyLayout}, {"elem_bytes", P::Int, true, "bytes per element (required)"}};
  std::vector<Param> banks = access;
  banks.push_back({"vector", P::Int, true, "values per thread per access (default 1)"});
  banks.push_back({"banks", P::Int, true, "banks (default 32)"});
  banks.push_back({"bank_bytes", P::Int, true, "bytes per bank word (default 4)"});
  r.add({"layout", "banks", "§4", "shared-memory bank conflicts of a TV layout through a (swizzled) smem layout (spec/SMEM.md); exit 1 on a conflict", banks,
         banks_result});
  r.add({"layout", "vector_width", "§4", "the widest access (<= 16 bytes) in which every thread's values are contiguous and aligned (spec/SMEM.md)", access,
         [](const Json& a) {
           std::string note;
           const LayoutPtr smem = smem_arg(a, note);
           const VectorWidth w = vector_width(plain_layout_arg(a, "tv", "vector_width"), *smem, require_int(inttuple_from_json(require_arg(a, "elem_bytes")), "elem_bytes"));
           Json j = vector_json(w);
           if (!note.empty()) j["note"] = note;
           return OpResult{j, (note.empty() ? "" : "note: " + note + "\n") + vector_text(w)};
         }});
}

}  // namespace tfspec::protocol
