// Python values <-> the protocol's JSON forms (spec/PROTOCOL.md "Encodings"), and the Python
// classes that hold reference layouts. The module calls ops through the protocol registry, so
// every answer is the one `tfspec serve` and the CLI give.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"
#include "fast_algebra.hpp"

namespace tfspec::python {
namespace py = pybind11;

// tfspec.Layout: any LayoutBase kind (plain, composed, shard); tfspec.ShardLayout derives from it.
// The result of a flat fast path (coalesce, complement: fast_algebra.hpp) of at most kFlatModes
// modes is held as its flat modes, s:d or (s0,...):(d0,...), and the reference layout is built
// from them on first use (layout()); every read goes through layout(), so either form answers alike.
struct PyLayout {
  static constexpr size_t kFlatModes = 8;
  PyLayout() = default;
  PyLayout(LayoutPtr p) : held(std::move(p)) {}  // NOLINT: a LayoutPtr is a PyLayout
  explicit PyLayout(const fast::Flat& f);         // f.n <= kFlatModes
  const LayoutPtr& layout() const {
    if (!held) materialize();
    return held;
  }
  // The flat modes (a fast path's result, not yet built as a reference layout), or false.
  bool flat(fast::Flat& out) const;

  mutable LayoutPtr held;
  mutable signed char concrete_plain = -1;  // the fast paths' test, decided once (-1: not yet; layout.cpp)
  uint8_t flat_n = 0;                       // > 0: flat_shape / flat_stride hold the layout
  int64_t flat_shape[kFlatModes] = {}, flat_stride[kFlatModes] = {};

 private:
  void materialize() const;
};
struct PyShardLayout : PyLayout {};

// Raises TypeError when `h` is a tfspec.Layout (or a subclass) whose __init__ never ran
// (`Layout.__new__(Layout)`, a subclass __init__ that skips Layout's): pybind11 would otherwise
// hand the methods raw, unconstructed memory (it allocates a missing value lazily).
void require_initialised(py::handle h);

}  // namespace tfspec::python

// Every argument cast to a PyLayout / PyShardLayout (the methods' `self`, Layout arguments of
// the ops) goes through require_initialised first.
namespace pybind11::detail {
template <>
class type_caster<tfspec::python::PyLayout> : public type_caster_base<tfspec::python::PyLayout> {
 public:
  bool load(handle src, bool convert) {
    tfspec::python::require_initialised(src);
    return type_caster_base<tfspec::python::PyLayout>::load(src, convert);
  }
};
template <>
class type_caster<tfspec::python::PyShardLayout> : public type_caster_base<tfspec::python::PyShardLayout> {
 public:
  bool load(handle src, bool convert) {
    tfspec::python::require_initialised(src);
    return type_caster_base<tfspec::python::PyShardLayout>::load(src, convert);
  }
};
}  // namespace pybind11::detail

namespace tfspec::python {

// A Python value as JSON: Layout objects as layout JSON, anything with .shape and .stride (pycute)
// as a plain layout, ints beyond 2^53 as decimal strings, tuples and lists as arrays.
Json to_json(py::handle v);
// A JSON result as Python: layout objects as tfspec.Layout / ShardLayout, arrays as tuples,
// decimal strings beyond 2^53 as ints; a layout object with more members (e.g. "outside" under
// domain="extend") as a dict whose "layout" is the layout.
py::object from_json(const Json& j);
// A Layout / ShardLayout object over `p` (ShardLayout when p is one).
py::object wrap(LayoutPtr p);
// A Layout object of flat modes (a fast path's result): held flat when it has at most
// PyLayout::kFlatModes modes, else built as a reference layout now.
py::object wrap(const fast::Flat& f);

// Raises tfspec.SpecError (rule, clause, kind, message, path) from an error member or a SpecError.
[[noreturn]] void raise_spec_error(const Json& error);
[[noreturn]] void raise_spec_error(const SpecError& e);
void register_errors(py::module_& m);

}  // namespace tfspec::python
