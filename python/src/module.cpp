// tfspec._tfspec: the compiled part of `import tfspec` (python/tfspec/__init__.py adds the Python
// layer: one function per op, prove(), check(), pycute interop). Issue 26.
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "layout.hpp"
#include "ops.hpp"
#include "tfspec/protocol/ops.hpp"
#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/kernel_ops.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#endif

PYBIND11_MODULE(_tfspec, m) {
  m.doc() = "tfspec's C++ reference, solver and pictures (the compiled part of the tfspec package)";
  m.attr("__version__") = TFSPEC_VERSION;
  auto& registry = tfspec::protocol::OpRegistry::instance();
  if (registry.ops().empty()) {  // the registry is the process's: register the groups once
    tfspec::protocol::register_reference_ops(registry);
#ifdef TFSPEC_HAVE_PROVE
    tfspec::protocol::register_prove_ops(registry);
    tfspec::protocol::register_kernel_ops(registry);  // kernel.check in-process: tfspec.kernel.check (issue 49)
#endif
  }
  tfspec::python::register_errors(m);
  tfspec::python::register_layouts(m);
  tfspec::python::register_ops(m);
}
