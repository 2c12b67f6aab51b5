"""A base for conformance adapters: the protocol of spec/PROTOCOL.md in pure Python (standard
library only; the compiled `tfspec` module is not needed).

    from tfspec.adapter import op, serve, Refused, Skipped

    @op("cosize")
    def cosize(layout):                  # layout: Layout(shape, stride) of ints and tuples
        return 1 + max(...)

    @op("composition")
    def composition(a, b):               # arguments in the protocol's order (a, tiler, domain?)
        if ...: raise Refused("composition-stride-divisibility")
        return my_layout                 # anything with .shape and .stride, or plain values

    serve()

`serve()` answers the handshake with the registered ops (every other case is unsupported), then
one reply per request: the op's return value as `result`, `Refused(rule)` as `error`, `Skipped()`
as `skipped`. Layout, tiler, IntTuple and coordinate arguments arrive converted (forms.py);
an op the base does not know gets its arguments as JSON, by keyword. A missing argument is
`protocol-missing-arg`, one that has no such form `protocol-bad-args`; any other exception from
an op is the adapter's own bug: an `internal` error reply, its traceback on stderr (the runner
shows the stderr tail with the case).
"""
import inspect
import json
import os
import sys
import traceback
from typing import Any, Callable, Dict, IO, List, Optional, Tuple

from . import forms
from .errors import Refused, Skipped
from .forms import Layout, flat, prefix_product, product

__all__ = ["Adapter", "Layout", "Refused", "Skipped", "flat", "op", "prefix_product", "product", "serve"]

_Form = Callable[[Any], Any]


def _raw(j: Any) -> Any:
    return j


_T: _Form = forms.inttuple
_L: _Form = forms.layout
_C: _Form = forms.coord
_I: _Form = forms.inttuple
_TILER: _Form = forms.tiler
_RAW: _Form = _raw
_TILED = (("a", _L, False), ("tiler", _TILER, False), ("domain", _RAW, True))
_PAIR = (("a", _L, False), ("b", _L, False), ("domain", _RAW, True))

# The layout group's parameters in protocol order (spec/PROTOCOL.md "Layout ops"): name, form,
# optional. An op's function receives them positionally, so its own parameter names are free.
PARAMS: Dict[str, Tuple[Tuple[str, _Form, bool], ...]] = {
    **{n: (("t", _T, False),) for n in ("flatten", "rank", "depth", "product", "prefix_product")},
    **{n: (("a", _T, False), ("b", _T, False)) for n in ("shape_div", "congruent", "compatible")},
    "crd2idx": (("coord", _C, False), ("shape", _T, False), ("stride", _T, True)),
    "idx2crd": (("index", _I, False), ("shape", _T, False)),
    "crd2crd": (("coord", _C, False), ("dst", _T, False), ("src", _T, False)),
    **{n: (("layout", _L, False),) for n in ("parse", "shape", "size", "domain_rank", "cosize", "right_inverse",
                                             "left_inverse", "injective", "check")},
    "eval": (("layout", _L, False), ("coord", _C, False)),
    "mode": (("layout", _L, False), ("i", _I, False)),
    "slice": (("layout", _L, False), ("coord", _C, False)),
    "coalesce": (("layout", _L, False), ("profile", _T, True)),
    "filter": (("layout", _L, False), ("profile", _T, True)),
    "complement": (("layout", _L, False), ("cotarget", _I, True)),
    **{n: _TILED for n in ("composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
                           "logical_product", "zipped_product", "tiled_product", "flat_product")},
    "blocked_product": _PAIR,
    "raked_product": _PAIR,
    "max_common_vector": (("a", _L, False), ("b", _L, False)),
    "admissible": (("a", _L, False), ("b", _L, False)),
}

PROTOCOL = 1


class _BadArgs(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class Adapter:
    """A set of ops and the loop that serves them; `op` and `serve` below use a default one."""

    def __init__(self, name: Optional[str] = None, version: str = "0") -> None:
        self.name = name or os.path.basename(sys.argv[0] or "adapter")
        self.version = version
        self.ops: Dict[str, Tuple[Callable[..., Any], bool]] = {}

    def op(self, name: str, raw: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Registers the decorated function as the protocol op `name` (raw: JSON arguments by keyword)."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.ops[name] = (fn, raw or name not in PARAMS)
            return fn
        return register

    def handshake(self) -> Dict[str, Any]:
        return {"cmd": "start", "protocol": PROTOCOL, "implementation": {"name": self.name, "version": self.version},
                "ops": sorted(self.ops)}

    def reply(self, req: Dict[str, Any]) -> Dict[str, Any]:
        """The reply object to one request object."""
        if "cmd" in req:
            if req["cmd"] == "start":
                return self.handshake()
            if req["cmd"] == "stop":
                return {"cmd": "stop"}
            return _error(req.get("seq"), "protocol-unknown-cmd", "cmd is start or stop", "-")
        seq, name = req.get("seq"), req.get("op")
        if not isinstance(name, str):
            return _error(seq, "protocol-malformed", "a request has a string op", "-")
        if name not in self.ops:
            return {"seq": seq, "skipped": {"reason": "unsupported op \"%s\"" % name}}
        fn, raw = self.ops[name]
        try:
            args = req.get("args", {})
            if not isinstance(args, dict):
                raise _BadArgs("protocol-bad-args", "args is a JSON object")
            return {"seq": seq, "result": forms.to_json(self._call(name, fn, raw, args))}
        except (Refused, _BadArgs) as e:
            return _error(seq, e.rule, str(e), getattr(e, "clause", None))
        except Skipped as e:
            return {"seq": seq, "skipped": {"reason": e.reason}}
        except Exception as e:  # the adapter's own bug: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            return _error(seq, "internal", "adapter raised %s: %s" % (type(e).__name__, e), "-")

    def _call(self, name: str, fn: Callable[..., Any], raw: bool, args: Dict[str, Any]) -> Any:
        if raw:
            return fn(**{k.replace("-", "_"): v for k, v in args.items()})
        values: List[Any] = []
        for pname, form, optional in PARAMS[name]:
            if pname not in args:
                if optional:
                    break  # later optional ones are passed only after this one
                raise _BadArgs("protocol-missing-arg", "%s needs the argument %s" % (name, pname))
            try:
                values.append(form(args[pname]))
            except Refused:
                raise
            except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as e:
                raise _BadArgs("protocol-bad-args", "%s: %s has no %s form (%s)" % (name, pname, form.__name__, e))
        takes = _arity(fn, len(values))
        if takes < len(values):  # never drop an argument that was given: it would change the question
            raise Skipped("%s does not take the argument %s" % (fn.__name__, PARAMS[name][takes][0]))
        return fn(*values)

    def serve(self, stdin: Optional[IO[str]] = None, stdout: Optional[IO[str]] = None) -> None:
        """Answers requests line by line until `stop` or the end of input."""
        inp: IO[str] = stdin or sys.stdin
        outp: IO[str] = stdout or sys.stdout
        for line in inp:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError as e:
                req, out = None, _error(None, "protocol-malformed", "not JSON: %s" % e, "-")
            else:
                out = self.reply(req) if isinstance(req, dict) else _error(None, "protocol-malformed", "not an object", "-")
            outp.write(json.dumps(out) + "\n")
            outp.flush()
            if isinstance(req, dict) and req.get("cmd") == "stop":
                break


def _arity(fn: Callable[..., Any], n: int) -> int:
    """How many of n positional values fn takes (an op may leave out optional parameters it never gets)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return n
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return n
    return min(n, sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)))


def _error(seq: Any, rule: str, message: str, clause: Optional[str] = None) -> Dict[str, Any]:
    err: Dict[str, Any] = {"rule": rule, "message": message}
    if clause:
        err["clause"] = clause
    return {"seq": seq, "error": err}


_default = Adapter()


def op(name: str, raw: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`@op("cosize")`: registers a function with the default adapter."""
    return _default.op(name, raw)


def serve(name: Optional[str] = None, version: Optional[str] = None, stdin: Optional[IO[str]] = None,
          stdout: Optional[IO[str]] = None) -> None:
    """Serves the ops registered with `@op` (name and version go into the handshake)."""
    if name:
        _default.name = name
    if version:
        _default.version = version
    _default.serve(stdin, stdout)
