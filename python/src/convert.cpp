// Python <-> protocol JSON (convert.hpp) and tfspec.SpecError.
#include "convert.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <memory>

#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/shard_layout.hpp"

namespace tfspec::python {
namespace {

// Nesting past this in a Python argument is refused (the reference's own parsers bound theirs;
// this bound keeps a self-referencing or absurdly deep Python list from exhausting the stack).
constexpr int kMaxNesting = 256;
constexpr int64_t kExact = int64_t{1} << 53;

Json int_json(py::handle v) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0 && x == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || x > kExact || x < -kExact) return Json(py::str(v).cast<std::string>());  // §: beyond 2^53 as text
  return Json(static_cast<int64_t>(x));
}

// collections.abc.Mapping, looked up once and kept for the process; not in a function-local
// static initializer, whose guard a second thread would wait on while holding the GIL the import
// may hand over (the deadlock of bulk.cpp's numpy(), issue 44). The GIL orders the accesses.
PyObject* abc_mapping() {
  static std::atomic<PyObject*> mapping{nullptr};
  if (PyObject* known = mapping.load()) return known;
  PyObject* found = py::object(py::module_::import("collections.abc").attr("Mapping")).release().ptr();
  PyObject* expected = nullptr;
  if (!mapping.compare_exchange_strong(expected, found)) Py_DECREF(found);
  return mapping.load();
}

Json to_json_at(py::handle v, int depth) {
  if (depth > kMaxNesting) throw py::value_error("argument nested more than 256 levels deep");
  if (v.is_none()) return Json(nullptr);
  if (py::isinstance<PyLayout>(v)) return tfspec::to_json(*v.cast<const PyLayout&>().layout());
  if (py::isinstance<py::bool_>(v)) return Json(v.cast<bool>());
  if (py::isinstance<py::int_>(v)) return int_json(v);
  if (py::isinstance<py::float_>(v)) return Json(v.cast<double>());
  if (py::isinstance<py::str>(v)) return Json(v.cast<std::string>());
  if (py::isinstance<py::dict>(v)) {
    Json out = Json::object();
    for (auto item : v.cast<py::dict>()) out[py::str(item.first).cast<std::string>()] = to_json_at(item.second, depth + 1);
    return out;
  }
  if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
    Json out = Json::array();
    for (auto x : v) out.push_back(to_json_at(x, depth + 1));
    return out;
  }
  if (PyObject_IsInstance(v.ptr(), abc_mapping()) == 1) {  // tfspec.Symbolic and other read-only mappings
    Json out = Json::object();
    for (auto item : v.attr("items")()) {
      auto kv = py::reinterpret_borrow<py::tuple>(item);
      out[py::str(kv[0]).cast<std::string>()] = to_json_at(kv[1], depth + 1);
    }
    return out;
  }
  if (py::hasattr(v, "shape") && py::hasattr(v, "stride"))  // duck-typed: pycute and friends
    return Json{{"kind", "layout"}, {"shape", to_json_at(v.attr("shape"), depth + 1)}, {"stride", to_json_at(v.attr("stride"), depth + 1)}};
  throw py::type_error("no protocol form for a " + py::str(py::type::of(v).attr("__name__")).cast<std::string>());
}

bool decimal(const std::string& s) {
  const size_t b = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() <= b || s.size() - b > 40) return false;
  for (size_t i = b; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool layout_kind(const Json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) return false;
  const auto& k = j["kind"].get_ref<const std::string&>();
  return k == "layout" || k == "composed" || k == "shard" || k == "linear" || k == "swizzle";
}

// The members that belong to the layout object itself (spec/PROTOCOL.md "Encodings").
bool own_member(const std::string& kind, const std::string& key) {
  if (key == "kind") return true;
  if (kind == "layout") return key == "shape" || key == "stride" || key == "strides";
  if (kind == "composed") return key == "inner" || key == "offset" || key == "outer";
  if (kind == "linear") return key == "bases" || key == "out_dims";  // X2
  if (kind == "swizzle") return key == "bits" || key == "base" || key == "shift";
  return key == "layout" || key == "attrs" || key == "mesh";
}

py::object layout_from(const Json& j) {
  Json own = Json::object();
  Json extra = Json::object();
  const std::string kind = j["kind"];
  for (const auto& [k, v] : j.items()) (own_member(kind, k) ? own : extra)[k] = v;
  py::object l = wrap(any_layout_from_json(own));
  if (extra.empty()) return l;
  py::dict d;
  d["layout"] = l;
  for (const auto& [k, v] : extra.items()) d[py::str(k)] = from_json(v);
  return d;
}

py::handle spec_error_class;  // set once by register_errors; kept for the process (never freed after finalization)

}  // namespace

Json to_json(py::handle v) { return to_json_at(v, 0); }

py::object from_json(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return py::none();
    case Json::value_t::boolean: return py::bool_(j.get<bool>());
    case Json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case Json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case Json::value_t::number_float: return py::float_(j.get<double>());
    case Json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      if (decimal(s)) return py::reinterpret_steal<py::object>(PyLong_FromString(s.c_str(), nullptr, 10));
      return py::str(s);
    }
    case Json::value_t::array: {
      py::tuple t(j.size());
      for (size_t i = 0; i < j.size(); ++i) t[i] = from_json(j[i]);
      return t;
    }
    case Json::value_t::object: {
      if (layout_kind(j)) return layout_from(j);
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = from_json(v);
      return d;
    }
    default: return py::none();
  }
}

void require_initialised(py::handle h) {
  static const py::detail::type_info* const layout_info = py::detail::get_type_info(typeid(PyLayout));
  if (!h || !layout_info || !PyObject_TypeCheck(h.ptr(), layout_info->type)) return;
  for (auto vh : py::detail::values_and_holders(reinterpret_cast<py::detail::instance*>(h.ptr())))
    if (!vh.holder_constructed())
      throw py::type_error("a " + std::string(Py_TYPE(h.ptr())->tp_name) +
                           " whose __init__ never ran (Layout.__new__ alone): make layouts with Layout(...), e.g. "
                           "Layout((4, 8), (8, 1))");
}

PyLayout::PyLayout(const fast::Flat& f) : concrete_plain(1), flat_n(static_cast<uint8_t>(f.n)) {
  std::copy(f.shape, f.shape + f.n, flat_shape);
  std::copy(f.stride, f.stride + f.n, flat_stride);
}

bool PyLayout::flat(fast::Flat& out) const {
  if (flat_n == 0) return false;
  out.n = flat_n;
  std::copy(flat_shape, flat_shape + flat_n, out.shape);
  std::copy(flat_stride, flat_stride + flat_n, out.stride);
  return true;
}

void PyLayout::materialize() const {
  fast::Flat f;
  if (!flat(f)) throw std::logic_error("a tfspec.Layout that holds no layout");
  held = std::make_shared<Layout>(fast::to_layout(f));
}

namespace {
// A new tfspec.Layout owning `value` (issue 31: every fast op's result comes here). What
// type_caster_generic::cast and class_::init_instance do for a new value taken over, without
// their two look-ups: of an instance already wrapping this pointer (there is none: it is new)
// and of the type's record by the hash of its C++ name (looked up once here).
py::object own(std::unique_ptr<PyLayout> value) {
  static const py::detail::type_info* const layout_info = py::detail::get_type_info(typeid(PyLayout));
  auto* inst = reinterpret_cast<py::detail::instance*>(py::detail::make_new_instance(layout_info->type));
  py::object self = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(inst));
  inst->owned = true;
  auto v_h = inst->get_value_and_holder(layout_info);
  v_h.value_ptr() = value.get();
  py::detail::register_instance(inst, v_h.value_ptr(), v_h.type);
  v_h.set_instance_registered();
  new (std::addressof(v_h.holder<std::unique_ptr<PyLayout>>())) std::unique_ptr<PyLayout>(value.release());  // class_'s holder
  v_h.set_holder_constructed();
  return self;
}
}  // namespace

py::object wrap(LayoutPtr p) {
  if (p->kind() == LayoutKind::Shard) return py::cast(PyShardLayout{{std::move(p)}});
  return own(std::make_unique<PyLayout>(std::move(p)));
}

py::object wrap(const fast::Flat& f) {
  if (f.n <= PyLayout::kFlatModes) return own(std::make_unique<PyLayout>(f));
  return wrap(std::make_shared<Layout>(fast::to_layout(f)));
}

void raise_spec_error(const Json& e) {
  auto text = [&](const char* k) { return e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string(); };
  const std::string msg = "[" + text("rule") + " " + text("clause") + "] " + text("message");
  py::object err = spec_error_class(msg);
  err.attr("rule") = text("rule");
  err.attr("clause") = text("clause");
  err.attr("kind") = text("kind");
  err.attr("message") = text("message");
  err.attr("path") = text("path");
  PyErr_SetObject(spec_error_class.ptr(), err.ptr());
  throw py::error_already_set();
}

void raise_spec_error(const SpecError& e) {
  Json err = protocol::error_json(e.diagnostic());
  err["path"] = e.diagnostic().path;
  raise_spec_error(err);
}

void register_errors(py::module_& m) {
  spec_error_class = py::handle(PyErr_NewExceptionWithDoc(
      "tfspec.SpecError",
      "A refusal of the tfspec reference: .rule (the stable rule id of rules.def), .clause (the spec clause), "
      ".kind (input, refusal, invariant, limit, internal), .message, .path.",
      PyExc_ValueError, nullptr));
  if (!spec_error_class) throw py::error_already_set();
  m.attr("SpecError") = spec_error_class;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SpecError& e) {
      try {
        raise_spec_error(e);
      } catch (py::error_already_set& set) {
        set.restore();
      }
    }
  });
}

}  // namespace tfspec::python
