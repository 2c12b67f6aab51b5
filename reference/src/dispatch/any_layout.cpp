// Closed dispatch over LayoutKind (§2: Layout, ComposedLayout, ShardLayout): the generic printer,
// JSON codec, text reader and check gate. This file sits above the shard model so that every
// kind is known here; there is no registration, and a program linked against the static library
// reads and writes every kind.
#include "common/checks.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/linear.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {

namespace {
std::string part_to_string(const LayoutPtr& p) { return p ? to_string(*p) : std::string("None"); }
Json part_to_json(const LayoutPtr& p) { return p ? to_json(*p) : Json(nullptr); }

// X1: {"kind":"swizzle","bits":B,"base":M,"shift":S}, each an integer.
LayoutPtr swizzle_from_json(const Json& j) {
  auto field = [&](const char* k) -> int64_t {
    if (!j.contains(k) || !j[k].is_number_integer()) fail(rule::kJsonType, std::string("a swizzle's \"") + k + "\" is an integer");
    return j[k].get<int64_t>();
  };
  return std::make_shared<Swizzle>(field("bits"), field("base"), field("shift"));
}

// `shard(` at the start of the text (after blanks).
bool is_shard_text(std::string_view text) {
  size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos || text.substr(b, 5) != "shard") return false;
  size_t p = text.find_first_not_of(" \t", b + 5);
  return p != std::string_view::npos && text[p] == '(';
}

// Composed layouts nest through this reader: bound the recursion explicitly.
struct DepthGuard {
  static inline thread_local int depth = 0;
  DepthGuard() {
    if (++depth > kMaxDepth) {
      --depth;
      fail(rule::in(rule::kNestingTooDeep, "§4"), "composed layouts nest too deeply");
    }
  }
  ~DepthGuard() { --depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};
}  // namespace

std::string to_string(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return to_string(static_cast<const Layout&>(l));
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      return part_to_string(c.inner()) + " o " + std::to_string(c.offset()) + " o " + part_to_string(c.outer());
    }
    case LayoutKind::Shard: return to_string(static_cast<const ShardLayout&>(l));
    case LayoutKind::Swizzle: return to_string(static_cast<const Swizzle&>(l));
    case LayoutKind::Linear: return to_string(static_cast<const LinearLayout&>(l));
  }
  fail(rule::kInternal, "unknown layout kind");
}

Json to_json(const LayoutBase& l) {
  switch (l.kind()) {
    case LayoutKind::Layout: return to_json(static_cast<const Layout&>(l));
    case LayoutKind::Composed: {
      const auto& c = static_cast<const ComposedLayout&>(l);
      return Json{{"kind", "composed"}, {"inner", part_to_json(c.inner())}, {"offset", to_json(IntTuple(c.offset()))}, {"outer", part_to_json(c.outer())}};
    }
    case LayoutKind::Shard: return shard_to_json(static_cast<const ShardLayout&>(l));
    case LayoutKind::Swizzle: {
      const auto& w = static_cast<const Swizzle&>(l);
      return Json{{"kind", "swizzle"}, {"bits", w.bits()}, {"base", w.base()}, {"shift", w.shift()}};
    }
    case LayoutKind::Linear: return linear_to_json(static_cast<const LinearLayout&>(l));
  }
  fail(rule::kInternal, "unknown layout kind");
}

LayoutPtr parse_any_layout(std::string_view text) {
  if (is_shard_text(text)) return std::make_shared<ShardLayout>(parse_shard_layout(text));
  if (is_linear_text(text)) return std::make_shared<LinearLayout>(parse_linear_layout(text));
  return parse_pure_layout(text);
}

LayoutPtr any_layout_from_json(const Json& j) {
  if (j.is_string()) return parse_any_layout(j.get<std::string>());
  if (!j.is_object()) fail(rule::kJsonType, "a layout is a JSON object or a text-notation string");
  if (j.contains("kind") && !j["kind"].is_string()) fail(rule::kJsonType, "a layout's \"kind\" is a string: layout, composed or shard");
  std::string kind = j.contains("kind") ? j["kind"].get<std::string>() : "layout";
  if (kind == "layout") return std::make_shared<Layout>(layout_from_json(j));
  if (kind == "shard") return std::make_shared<ShardLayout>(shard_from_json(j));
  if (kind == "swizzle") return swizzle_from_json(j);
  if (kind == "linear") return std::make_shared<LinearLayout>(linear_from_json(j));  // X2
  if (kind == "composed") {
    DepthGuard guard;
    auto part = [&](const char* k) -> LayoutPtr { return !j.contains(k) || j[k].is_null() ? nullptr : any_layout_from_json(j[k]); };
    int64_t off = j.contains("offset") ? require_int(inttuple_from_json(j["offset"]), "offset") : 0;
    LayoutPtr outer = part("outer");
    if (outer && outer->kind() == LayoutKind::Swizzle)
      fail(rule::kSwizzlePosition, "a swizzle maps offsets, so it is the inner part of a composed layout, not the outer");
    return std::make_shared<ComposedLayout>(part("inner"), off, std::move(outer));
  }
  fail(rule::kUnknownLayoutKind, "unknown layout kind '" + kind + "' (layout, composed, shard, swizzle or linear)");
}

CheckReport check_layout(const LayoutBase& l, const std::string& path) {
  switch (l.kind()) {
    case LayoutKind::Layout: return check_plain_layout(l, path);
    case LayoutKind::Composed: return check_composed_layout(l, path);
    case LayoutKind::Shard: return check_shard_layout(static_cast<const ShardLayout&>(l), {}, path);
    case LayoutKind::Swizzle: return CheckReport{};  // X1: a bijection on offsets; its parameters were checked when it was made
    case LayoutKind::Linear: return CheckReport{};   // X2: its dims and bases were checked when it was made
  }
  fail(rule::kInternal, "unknown layout kind");
}

std::vector<const RuleId*> checked_rules(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::Layout: return plain_layout_checked_rules();
    case LayoutKind::Composed: return composed_layout_checked_rules();
    case LayoutKind::Shard: return shard_checked_rules();
    case LayoutKind::Swizzle: return {};
    case LayoutKind::Linear: return {};
  }
  return {};
}

}  // namespace tfspec
