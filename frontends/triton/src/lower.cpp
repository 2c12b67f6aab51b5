// A TTGIR module lowered to the moves kernel/ checks (spec/TRITON.md §3): each data-moving op
// with its layouts derived (§2). An encoding tfspec does not derive leaves the move undecided,
// with the reason; nothing is guessed.
#include "tfspec/frontends/triton/lower.hpp"

#include <algorithm>
#include <set>

#include "tfspec/reference/error.hpp"

namespace tfspec::triton {
namespace {

using kernel::Move;
using kernel::MoveKind;

// The layout of a tensor or memdesc type, or the reason there is none.
std::optional<LinearLayout> layout_of(const TypeInfo& t, const Module& m, std::string& why, bool alloc) {
  if (!t.encoding) {
    why = "the type " + t.text + " has no encoding";
    return std::nullopt;
  }
  if (!derivable(*t.encoding)) {
    why = "#ttg." + t.encoding->kind + " is not derived by tfspec (listed, not guessed" +
          (one_cta(*t.encoding) ? std::string() : "; it spans several CTAs of a cluster, and §2 derives one CTA's layout, spec/TRITON.md §2.7") +
          (unread_attribute(*t.encoding) ? "; its attribute `" + *unread_attribute(*t.encoding) + "` is not one §2 reads, spec/TRITON.md §2.7" : std::string()) +
          "): " + t.encoding->text;
    return std::nullopt;
  }
  std::vector<int64_t> shape = alloc ? t.alloc_shape : t.shape;
  if (alloc && shape.size() > t.shape.size()) shape.erase(shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(t.shape.size()));
  try {
    return to_linear(*t.encoding, shape, m.threads_per_warp);
  } catch (const SpecError& e) {
    why = e.what();
    return std::nullopt;
  }
}

Move base_move(const Op& op, MoveKind kind, const TypeInfo& data) {
  Move mv;
  mv.kind = kind;
  mv.subject = op.name + (op.results.empty() ? "" : " %" + op.results[0]) + " (line " + std::to_string(op.line) + ")";
  mv.loc = op.loc;
  mv.elem_bits = data.elem_bits;
  mv.shape = data.shape;
  mv.live_from = mv.live_to = op.line;
  return mv;
}

// A register tensor and a shared buffer: local_load (mem -> regs), local_store and async copies.
Move shared_move(const Op& op, MoveKind kind, const TypeInfo& regs, const TypeInfo& mem, const Module& m) {
  Move mv = base_move(op, kind, mem);
  mv.regs = layout_of(regs, m, mv.undecided, false);
  mv.smem = layout_of(mem, m, mv.undecided, true);
  mv.smem_shape = mem.alloc_shape;
  if (mv.smem_shape.size() > mem.shape.size()) mv.smem_shape.erase(mv.smem_shape.begin(), mv.smem_shape.end() - static_cast<std::ptrdiff_t>(mem.shape.size()));
  return mv;
}

Move global_move(const Op& op, MoveKind kind, const TypeInfo& ptr, const Module& m, const std::map<std::string, ValueFacts>& facts) {
  Move mv = base_move(op, kind, ptr);
  mv.regs = layout_of(ptr, m, mv.undecided, false);
  auto f = op.operands.empty() ? facts.end() : facts.find(op.operands[0]);
  if (f != facts.end()) {
    mv.global.contiguous_dim = f->second.contiguous_dim;
    mv.global.contiguity = f->second.contiguity;
    mv.global.align_elems = f->second.divisibility;
  }
  if (op.attrs.count("contiguity")) mv.global.contiguity = std::max(mv.global.contiguity, op.attrs.at("contiguity"));
  // §3.4.1 the mask: tt.load %ptr, %mask, %other; tt.store %ptr, %value, %mask; an async copy's
  // `%ptr, %buf mask %m other %o`
  const size_t mask_at = op.name == "tt.load" ? 1 : 2;
  if (op.operands.size() > mask_at && mv.global.contiguous_dim >= 0) {
    const auto mf = facts.find(op.operands[mask_at]);
    const size_t cd = static_cast<size_t>(mv.global.contiguous_dim);
    mv.global.mask_constancy = mf != facts.end() && cd < mf->second.constancy.size() ? mf->second.constancy[cd] : 1;
  }
  return mv;
}

kernel::DotOperand operand(const TypeInfo& t, const Module& m, std::string& why) {
  kernel::DotOperand d;
  if (t.kind == TypeInfo::Kind::MemDesc && t.encoding) {  // wgmma reads it from shared memory, by descriptor
    std::string ignored;  // an operand not derived is reported by the dot check as not expressible
    if (t.alloc_shape.size() >= t.shape.size() && std::equal(t.shape.begin(), t.shape.end(), t.alloc_shape.end() - static_cast<std::ptrdiff_t>(t.shape.size())))
      d.smem = layout_of(t, m, ignored, true);
    d.shape = t.shape;
    d.encoding = t.encoding->text;
    d.elem_bits = t.elem_bits;
    if (t.encoding->kind == "nvmma_shared") {
      d.swizzle_bytes = t.encoding->get_int("swizzlingByteWidth");
      d.transposed = t.encoding->params.count("transposed") && t.encoding->get_int("transposed") != 0;
    }
    return d;
  }
  if (!t.encoding) return d;
  d.layout = layout_of(t, m, why, false);
  if (t.encoding->kind == "dot_op") {
    d.parent = t.encoding->get_enc("parent").text;
    d.op_idx = t.encoding->get_int("opIdx");
    d.k_width = t.encoding->get_int("kWidth");
  }
  return d;
}

// Where each memdesc value starts in its allocation (§3.1): a subslice adds its offsets to its
// source's, an index selects a whole buffer (origin 0), a loop's iter_args start as their initial
// values. Offsets are in the view's dims, the allocation's trailing dims.
using Origins = std::map<std::string, std::vector<int64_t>>;

void track_origin(const Op& op, Origins& origin) {
  if (op.name == "scf.for") {
    for (size_t i = 4; i + 1 < op.operands.size(); i += 2)
      if (origin.count(op.operands[i + 1])) origin[op.operands[i]] = origin[op.operands[i + 1]];
  } else if (op.name == "ttg.memdesc_subslice" && !op.results.empty() && !op.operands.empty()) {
    std::vector<int64_t> o = op.offsets;
    const auto src = origin.find(op.operands[0]);
    if (src != origin.end())
      for (size_t d = 0; d < o.size() && d < src->second.size(); ++d) o[d] += src->second[d];
    origin[op.results[0]] = o;
  }
}

Move with_origin(Move mv, const Origins& origin, const std::string& memdesc) {
  const auto o = origin.find(memdesc);
  if (o != origin.end()) mv.smem_origin = o->second;
  return mv;
}

// §3.5 a buffer's live range, as Triton's allocator takes it: from its local_alloc to the last op
// that uses it or a view of it (memdesc_index / subslice / trans / reshape results, a loop's
// iter_args and results it starts), where a use inside a loop or branch the buffer was made outside
// of counts as the whole of that op (the loop reads it on every iteration).
int live_end(const Module& m, size_t alloc) {
  const Op& def = m.ops[alloc];
  std::set<std::string> names{def.results.empty() ? std::string() : def.results[0]};
  auto holds = [&](const std::string& operand) { return names.count(operand.substr(0, operand.find('#'))) > 0 || names.count(operand) > 0; };
  auto inside = [](const Op& region, int line) { return region.end_line > region.line && region.line < line && line <= region.end_line; };
  int end = def.line;
  for (size_t i = alloc + 1; i < m.ops.size(); ++i) {
    const Op& op = m.ops[i];
    bool uses = false;
    for (size_t k = 0; k < op.operands.size(); ++k) {
      if (!holds(op.operands[k])) continue;
      uses = true;
      if (op.name == "scf.for" && k >= 5 && (k - 4) % 2 == 1) {  // iter_args(%arg = %init): the arg and the loop's result k
        names.insert(op.operands[k - 1]);
        if (!op.results.empty()) names.insert(op.results[0] + "#" + std::to_string((k - 5) / 2));
      }
    }
    if (!uses) continue;
    if (op.name.starts_with("ttg.memdesc_") && !op.results.empty()) names.insert(op.results[0]);
    int at = op.end_line;
    for (const Op& r : m.ops)  // the outermost region holding the use but not the buffer's op
      if (inside(r, op.line) && !inside(r, def.line)) at = std::max(at, r.end_line);
    end = std::max(end, at);
  }
  return end;
}

void lower_op(const Op& op, size_t index, const Module& m, const std::map<std::string, ValueFacts>& facts, const Origins& origin, kernel::LayoutProgram& p) {
  const auto& in = op.in_types;
  const auto& out = op.out_types;
  if (op.name == "ttg.local_alloc" && !out.empty()) {
    Move a = base_move(op, MoveKind::Alloc, out[0]);
    a.live_to = live_end(m, index);
    int64_t n = 1;
    for (int64_t s : out[0].alloc_shape) n *= s;
    a.alloc_bytes = n * out[0].elem_bits / 8;
    p.moves.push_back(a);
    if (!in.empty() && in[0].kind == TypeInfo::Kind::Tensor) p.moves.push_back(shared_move(op, MoveKind::SharedStore, in[0], out[0], m));
  } else if (op.name == "ttg.local_load" && !in.empty() && !out.empty()) {
    Move load = with_origin(shared_move(op, MoveKind::SharedLoad, out[0], in[0], m), origin, op.operands.empty() ? "" : op.operands[0]);
    const auto& enc = out[0].encoding;
    load.to_mma_operand = enc && enc->kind == "dot_op" && enc->get_enc("parent").kind == "nvidia_mma";  // ldmatrix (§3.1)
    p.moves.push_back(load);
  } else if (op.name == "ttg.local_store" && in.size() >= 2) {
    p.moves.push_back(with_origin(shared_move(op, MoveKind::SharedStore, in[0], in[1], m), origin, op.operands.size() > 1 ? op.operands[1] : ""));
  } else if (op.name == "ttg.local_store" && in.size() == 1 && !out.empty()) {
    p.moves.push_back(shared_move(op, MoveKind::SharedStore, in[0], out[0], m));
  } else if (op.name == "ttg.async_copy_global_to_local" && !in.empty() && !out.empty()) {
    p.moves.push_back(global_move(op, MoveKind::GlobalLoad, in[0], m, facts));
    Move s = with_origin(shared_move(op, MoveKind::AsyncCopy, in[0], out[0], m), origin, op.operands.size() > 1 ? op.operands[1] : "");
    s.elem_bits = out[0].elem_bits;
    p.moves.push_back(s);
  } else if (op.name == "ttg.convert_layout" && !in.empty() && !out.empty()) {
    Move c = base_move(op, MoveKind::Convert, in[0]);
    c.regs = layout_of(in[0], m, c.undecided, false);
    c.regs_to = layout_of(out[0], m, c.undecided, false);
    if (in[0].pointer) c.elem_bits = 64;  // a pointer tensor's scratch holds 64-bit addresses (§3.2.1)
    p.moves.push_back(c);
  } else if ((op.name == "tt.reduce" || op.name == "tt.scan") && !in.empty() && in[0].kind == TypeInfo::Kind::Tensor && op.attrs.count("axis")) {
    // §3.5.1, §3.5.2: the operands share one layout; each adds its element width to the scratch
    Move r = base_move(op, op.name == "tt.scan" ? MoveKind::Scan : MoveKind::Reduce, in[0]);
    r.regs = layout_of(in[0], m, r.undecided, false);
    if (op.name == "tt.scan" && in[0].encoding && in[0].encoding->kind != "blocked")  // Triton 3.9 lowers scans of blocked layouts only
      r.regs.reset(), r.undecided = "tt.scan of #ttg." + in[0].encoding->kind + ": Triton 3.9 lowers scans of blocked layouts only (§3.5.2)";
    r.axis = static_cast<int>(op.attrs.at("axis"));
    for (const TypeInfo& t : in) r.operand_bits.push_back(t.pointer ? 64 : t.elem_bits);
    p.moves.push_back(r);
  } else if ((op.name == "tt.load" || op.name == "tt.store") && !in.empty() && in[0].pointer && in[0].kind == TypeInfo::Kind::Tensor) {
    p.moves.push_back(global_move(op, op.name == "tt.load" ? MoveKind::GlobalLoad : MoveKind::GlobalStore, in[0], m, facts));
  } else if ((op.name == "tt.dot" || op.name == "ttng.warp_group_dot") && in.size() >= 2 && !out.empty()) {
    Move d = base_move(op, MoveKind::Dot, out[0]);
    d.a = operand(in[0], m, d.undecided);
    d.b = operand(in[1], m, d.undecided);
    d.elem_bits = in[0].elem_bits;
    d.accumulator = out[0].encoding ? out[0].encoding->text : "";
    d.regs = layout_of(out[0], m, d.undecided, false);
    p.moves.push_back(d);
  }
}

}  // namespace

kernel::LayoutProgram lower(const Module& m, std::optional<int64_t> metadata_shared) {
  kernel::LayoutProgram p;
  p.name = m.kernel;
  p.loc = m.loc;
  p.arch = m.target.starts_with("cuda:") ? "sm" + m.target.substr(5) : m.target;
  p.threads_per_warp = m.threads_per_warp;
  p.num_warps = m.num_warps;
  p.declared_shared = metadata_shared;
  p.unknown = m.unknown;
  const auto facts = global_facts(m);
  Origins origin;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    track_origin(m.ops[i], origin);
    lower_op(m.ops[i], i, m, facts, origin, p);
  }
  return p;
}

}  // namespace tfspec::triton
