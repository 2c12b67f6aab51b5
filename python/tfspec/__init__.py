"""tfspec from Python: the layout algebra, the shard model, proofs and pictures of the tfspec
reference (the compiled part, tfspec._tfspec, built by CMake), and tfspec.adapter, a pure-Python
base for conformance adapters that needs no compiled part.

    >>> import tfspec
    >>> a = tfspec.Layout("(4,8):(8,1)")
    >>> tfspec.logical_divide(a, "(2:1,4:1)")
    Layout('((2,2),(4,2)):((8,16),(1,4))')

One function per protocol op (spec/PROTOCOL.md): the layout group by its name (composition,
complement, logical_divide, ...), the shard group without its prefix (canon, typeinfer,
reshard, local_shape, ...), `propagate`, `reshard_plan`; `prove(goal, ...)` and `check(...)`;
tfspec.kernel checks kernel pipelines. Refusals raise tfspec.SpecError with .rule, .clause, .kind.
"""
import importlib.util as _util

from ._loader import load_error as _load_error

if _util.find_spec(__name__ + "._tfspec") is None:  # a source tree without the build: tfspec.adapter still works
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise ImportError("tfspec.%s needs the compiled module tfspec._tfspec, which is not built: build it (cmake "
                          "--build build) and put build/python on PYTHONPATH, or pip install .; tfspec.adapter works "
                          "without it" % name)
else:
    try:
        from . import _tfspec  # noqa: F401
    except ImportError as _broken:  # the module is there but cannot load: a missing system library
        raise _load_error(_broken) from None
    from ._tfspec import Layout, ShardLayout, SpecError, __version__, to_json  # noqa: F401
    from ._api import CheckResult, LinearLayout, Symbolic, Verdict, Violation, check, prove, _op_functions  # noqa: F401

    import builtins as _builtins

    _functions = _op_functions()
    globals().update(_functions)
    # `from tfspec import *` must not shadow eval, filter, slice: those stay tfspec.eval, ...
    __all__ = sorted(["Layout", "LinearLayout", "ShardLayout", "Symbolic", "SpecError", "CheckResult", "Verdict", "Violation", "check", "prove",
                      "to_json"] + [n for n in _functions if not hasattr(_builtins, n)])
