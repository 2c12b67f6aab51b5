// Substituting symbol values (§1), by a closed dispatch over the layout kinds (§2) as in
// any_layout.cpp: a Layout's shape and stride, both parts of a ComposedLayout (§4), a
// ShardLayout's layout and its mesh's layout (§5, §7).
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/bind.hpp"

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {

void collect_symbols(const IntTuple& t, std::set<std::string>& out) {
  if (t.is_sym()) collect_vars(t.dim(), out);
  if (t.is_tuple())
    for (const auto& c : t.children()) collect_symbols(c, out);
}

namespace {

void collect_layout(const LayoutBase* l, std::set<std::string>& out) {
  if (!l) return;
  switch (l->kind()) {
    case LayoutKind::Layout: {
      const auto& p = static_cast<const Layout&>(*l);
      collect_symbols(p.shape_ref(), out);
      if (p.materialized()) collect_symbols(p.stride(), out);
      return;
    }
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(*l);
      collect_layout(c.inner().get(), out);
      collect_layout(c.outer().get(), out);
      return;
    }
    case LayoutKind::Shard: {
      const auto& s = static_cast<const ShardLayout&>(*l);
      collect_layout(s.layout().get(), out);
      collect_layout(s.mesh().layout().get(), out);
      return;
    }
    case LayoutKind::Swizzle: return;  // integers only
    case LayoutKind::Linear: return;   // X2: integers only
  }
}

LayoutPtr bind_part(const LayoutPtr& l, const Bindings& b) { return l ? bind_symbols(*l, b) : nullptr; }

}  // namespace

std::set<std::string> layout_symbols(const LayoutBase& l) {
  std::set<std::string> out;
  collect_layout(&l, out);
  return out;
}

IntTuple bind_symbols(const IntTuple& t, const Bindings& b) {
  if (t.is_sym()) return IntTuple(evaluate(t.dim(), b));
  if (!t.is_tuple()) return t;
  std::vector<IntTuple> c;
  for (const auto& x : t.children()) c.push_back(bind_symbols(x, b));
  return IntTuple::tuple(std::move(c));
}

LayoutPtr bind_symbols(const LayoutBase& l, const Bindings& b) {
  switch (l.kind()) {
    case LayoutKind::Layout: {
      const auto& p = static_cast<const Layout&>(l);
      if (!p.materialized()) return std::make_shared<Layout>(Layout::unmaterialized(bind_symbols(p.shape_ref(), b)));
      return std::make_shared<Layout>(bind_symbols(p.shape_ref(), b), bind_symbols(p.stride(), b));
    }
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      return std::make_shared<ComposedLayout>(bind_part(c.inner(), b), c.offset(), bind_part(c.outer(), b));
    }
    case LayoutKind::Shard: {
      const auto& s = static_cast<const ShardLayout&>(l);
      const Mesh& m = s.mesh();
      return std::make_shared<ShardLayout>(bind_symbols(*s.layout(), b), s.attrs(), Mesh(m.topologies(), bind_symbols(*m.layout(), b), m.names()));
    }
    case LayoutKind::Swizzle: return std::make_shared<Swizzle>(static_cast<const Swizzle&>(l));
    case LayoutKind::Linear: return std::make_shared<LinearLayout>(static_cast<const LinearLayout&>(l));
  }
  fail(rule::kInternal, "unknown layout kind");
}

}  // namespace tfspec
