"""The Python layer over tfspec._tfspec: one function per protocol op (spec/PROTOCOL.md), prove(),
check(), the verdict and check result objects, pycute interop. Every op runs through the same
registry as `tfspec serve` and the CLI, so a result here is the CLI's result."""
import inspect
import math
from typing import Any, Callable, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from . import _tfspec
from ._tfspec import Layout, ShardLayout, SpecError, _call

# Op names that the Python layer spells differently or wraps (check, prove) or leaves to _call.
_SPECIAL = {"check", "shard.check", "layout.rules", "rules", "shard.rules"}


class Symbolic(Mapping[str, Any]):
    """A scalar with symbolic dims (`Layout("(M,N):(1,M)").size()`, spec/ALGEBRA.md S1-S8): str(v)
    is its expression ("M*N") where one expression is right for every case, else the cases joined
    with `;`; it compares equal to that text: `Layout("(M,N):(1,M)").size() == "M*N"`. Not a dict:
    .expression, .cases, .conditions and .validated, and v["result"] etc. read the protocol's
    answer (a read-only mapping: "result", "cases", "conditions", "validated")."""

    __slots__ = ("_answer",)

    def __init__(self, answer: Mapping[str, Any]) -> None:
        self._answer: Dict[str, Any] = dict(answer)

    def __getitem__(self, key: str) -> Any:
        return self._answer[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._answer)

    def __len__(self) -> int:
        return len(self._answer)

    @property
    def expression(self) -> Optional[str]:
        r = self._answer.get("result")
        return r if isinstance(r, str) else None

    @property
    def cases(self) -> Sequence[Dict[str, Any]]:
        return tuple(self._answer.get("cases", ()))

    @property
    def conditions(self) -> Sequence[Dict[str, Any]]:
        return tuple(self._answer.get("conditions", ()))

    @property
    def validated(self) -> Optional[Dict[str, Any]]:
        v: Optional[Dict[str, Any]] = self._answer.get("validated")
        return v

    def __str__(self) -> str:
        if self.expression is not None:
            return self.expression
        return " ; ".join("%s if %s" % (c.get("result"), " and ".join(c.get("when", ())) or "always") for c in self.cases)

    def __repr__(self) -> str:
        return "Symbolic(%r)" % str(self)

    def _normal_form(self) -> Any:
        """What two equal values share (issue 46 item 6): the engine prints every expression in its
        normal form (spec/ALGEBRA.md S2), so `size("(K,M)")` and `Layout("(M,K):(K,1)").size()` both
        read "K*M"; a value with cases is its set of (guard, result) pairs, in any order. The
        conditions and the validation counts say how the value was derived, not what it is."""
        if self.expression is not None:
            return self.expression.replace(" ", "")
        return frozenset((tuple(c.get("when", ())), str(c.get("result"))) for c in self.cases)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str(self).replace(" ", "") == other.replace(" ", "")
        if isinstance(other, Symbolic):
            return bool(self._normal_form() == other._normal_form())
        if isinstance(other, Mapping):
            return self._answer == dict(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._normal_form())  # equal to hash(str) of the expression it equals


def _scalar(result: Any) -> Any:
    """A symbolic scalar answer (a dict with a text `result` and its `conditions`) as a Symbolic."""
    if isinstance(result, dict) and "conditions" in result and isinstance(result.get("result", ""), str) and "layout" not in result:
        return Symbolic(result)
    return result


def _tiler_arg(t: Any) -> Any:
    """What CuTe DSL and pycute users write for a tiler: a tuple of ints or Layouts is by-mode (A4)."""
    if isinstance(t, (tuple, list)):
        return {"tiler": [_tiler_arg(x) if isinstance(x, (tuple, list)) else x for x in t]}
    return t


def _make(protocol_name: str, clause: str, summary: str, params: Sequence[Tuple[str, bool, str]]) -> Callable[..., Any]:
    tiler_at = [i for i, (n, _, _) in enumerate(params) if n == "tiler"]

    def fn(*args: Any, **kwargs: Any) -> Any:
        if tiler_at and len(args) > tiler_at[0]:
            args = args[:tiler_at[0]] + (_tiler_arg(args[tiler_at[0]]),) + args[tiler_at[0] + 1:]
        if "tiler" in kwargs:
            kwargs["tiler"] = _tiler_arg(kwargs["tiler"])
        return _scalar(_call(protocol_name, *args, **kwargs))

    fn.__name__ = fn.__qualname__ = protocol_name.split(".")[-1].replace("-", "_")
    fn.__doc__ = "%s (%s): %s\n\nThe protocol op `%s`; arguments: %s. Text arguments are read as the CLI reads " \
                 "them (notation), Layout objects and JSON-like values as given." % (
                     fn.__name__, clause, summary, protocol_name,
                     ", ".join(n + ("?" if opt else "") for n, opt, _ in params) or "none")
    fn.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(n.replace("-", "_"), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=None if opt else inspect.Parameter.empty) for n, opt, _ in params])
    return fn


def _compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The hot algebra ops (composition, the divides and products, complement, coalesce, ...) as
    compiled functions (issue 31): a call with concrete plain Layout arguments runs the reference's
    C++ with no Python frame in between; any other call goes on to `fn`. Same signature and doc."""
    doc = "%s%s\n--\n\n%s" % (fn.__name__, inspect.signature(fn), fn.__doc__)
    fast: Callable[..., Any] = _tfspec._fast_op(fn.__name__, fn, doc)
    return fast


def _op_functions() -> Dict[str, Callable[..., Any]]:
    """{python name: function} for the layout, shard, propagate and multigpu groups (prove has
    prove(), kernel.check is tfspec.kernel.check)."""
    out: Dict[str, Callable[..., Any]] = {}
    fast = set(_tfspec._fast_ops())
    for protocol_name, group, name, clause, summary, params in _tfspec._ops():
        if group in ("prove", "kernel") or protocol_name in _SPECIAL:
            continue
        fn = _make(protocol_name, clause, summary, params)
        if group == "layout" and fn.__name__ in fast:
            fn = _compiled(fn)
        out.setdefault(fn.__name__, fn)  # a layout op keeps its name when a shard op shares it
    return out


class Violation(NamedTuple):
    rule: str
    clause: str
    message: str
    path: str


class CheckResult:
    """check(): all violations (the object breaks the rule) and undecided entries (the reference
    could not decide within its limits; never a violation). `ok` means no violation."""

    def __init__(self, result: Dict[str, Any]) -> None:
        self.verdict: str = result.get("verdict", "ok" if result.get("ok") else "violation")
        self.ok = bool(result.get("ok"))
        self.violations = [Violation(**{k: v.get(k, "") for k in Violation._fields}) for v in result.get("violations", ())]
        self.undecided = [Violation(**{k: v.get(k, "") for k in Violation._fields}) for v in result.get("undecided", ())]
        self.layout: Any = result.get("layout")

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return "CheckResult(%s, violations=%s, undecided=%s)" % (self.verdict, [v.rule for v in self.violations],
                                                                 [u.rule for u in self.undecided])


def check(layout: Any, **kwargs: Any) -> CheckResult:
    """Every rule violation of a layout (§2 TensorType.layout gate) or of a shard layout (§7; the
    keyword arguments stage, storage, shape, mesh go to `shard.check`)."""
    text = layout if isinstance(layout, str) else ""
    shard = isinstance(layout, ShardLayout) or bool(kwargs) or "@" in text or text.lstrip().startswith("shard")
    return CheckResult(_call("shard.check" if shard else "check", layout, **kwargs))


class Verdict:
    """prove(): PROVED (under the stated assumptions), REFUTED (with a counterexample the
    reference replayed) or UNKNOWN (with the reason). spec/PROVE.md; `bool(v)` is v.proved."""

    def __init__(self, result: Dict[str, Any]) -> None:
        self.result = result
        self.goal: Optional[str] = result.get("goal")
        self.clause: Optional[str] = result.get("clause")
        self.verdict: Optional[str] = result.get("verdict")
        self.method: Optional[str] = result.get("method")
        self.scope: Optional[str] = result.get("scope")
        self.counterexample: Any = result.get("counterexample")
        self.reason: Optional[str] = result.get("reason")
        self.assumptions: Sequence[str] = result.get("assumptions", ())
        self.attempts: Sequence[str] = result.get("attempts", ())
        self.seconds: Optional[float] = result.get("seconds")

    @property
    def proved(self) -> bool:
        return self.verdict == "PROVED"

    @property
    def refuted(self) -> bool:
        return self.verdict == "REFUTED"

    @property
    def unknown(self) -> bool:
        return self.verdict == "UNKNOWN"

    def __bool__(self) -> bool:
        return self.proved

    def __repr__(self) -> str:
        detail = {"PROVED": "method=%r, scope=%r" % (self.method, self.scope),
                  "REFUTED": "counterexample=%r" % (self.counterexample or {}).get("text"),
                  "UNKNOWN": "reason=%r" % self.reason}.get(self.verdict or "", "")
        return "Verdict(%s %s, %s)" % (self.verdict, self.goal, detail)


def prove(goal: str, *objects: Any, assume: Any = None, timeout: Optional[float] = None, **kwargs: Any) -> Verdict:
    """prove('injective', '(M,N):(1,M)', assume=['M >= 1'], timeout=2.0) -> Verdict.

    goal: injective, in-bounds, fits-int32, fits-int64, equivalent, admissible, divides, shard
    (spec/PROVE.md); objects in the op's order; timeout in seconds per solver call."""
    if not isinstance(goal, str):
        raise TypeError("prove(goal, ...): the goal is a str such as 'injective', not %s" % type(goal).__name__)
    op = "prove." + goal.replace("_", "-")
    goals = sorted(name[len("prove."):] for name, *_ in _tfspec._ops() if name.startswith("prove."))
    if op[len("prove."):] not in goals:
        _tfspec._refuse("prove-usage", "no prove goal %r: the goals are %s (spec/PROVE.md)" % (goal, ", ".join(goals)))
    if timeout is not None:
        kwargs["timeout_ms"] = _timeout_ms(timeout)
    if assume is not None:
        kwargs["assume"] = [assume] if isinstance(assume, str) else list(assume)
    return Verdict(_call(op, *objects, **kwargs))


def _timeout_ms(timeout: Any) -> int:
    """prove's timeout in seconds as the op's timeout_ms, an integer in [1, 600000]: a non-number
    is a wrong call (TypeError); NaN, an infinity, 0 or less, or past 600 s a refusal (SpecError),
    as the op refuses such a timeout_ms (never a bare ValueError / OverflowError, issue 44)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError("prove(timeout=...) is a number of seconds, not %s" % type(timeout).__name__)
    if not math.isfinite(timeout) or not 0.001 <= timeout <= 600:
        _tfspec._refuse("prove-usage", "timeout is a finite number of seconds from 0.001 to 600, not %r" % (timeout,))
    return int(round(timeout * 1000))


def _from_pycute(cls: Any, obj: Any) -> Any:
    """A Layout from any object with .shape and .stride (pycute's Layout, CuTe DSL-like)."""
    return cls(obj.shape, obj.stride)


def _to_pycute(self: Layout) -> Any:
    """This layout as a pycute.Layout (pycute must be importable)."""
    import pycute  # type: ignore[import-untyped,import-not-found,unused-ignore]
    return pycute.Layout(self.shape, self.stride)


_size, _cosize = Layout.size, Layout.cosize


def _size_of(self: Layout) -> Any:
    """Number of domain points: an int, or a Symbolic for symbolic extents."""
    return _scalar(_size(self))


def _cosize_of(self: Layout) -> Any:
    """1 + the largest offset: an int, or a Symbolic for symbolic extents."""
    return _scalar(_cosize(self))


_apply = Layout.__call__


def _apply_of(self: Layout, *args: Any) -> Any:
    """L(i) or L(coord): an int, or a Symbolic for symbolic extents or strides (docs/python.md)."""
    return _scalar(_apply(self, *args))


setattr(Layout, "__call__", _apply_of)
setattr(Layout, "size", _size_of)
setattr(Layout, "cosize", _cosize_of)
setattr(Layout, "from_pycute", classmethod(_from_pycute))
setattr(Layout, "to_pycute", _to_pycute)


class LinearLayout(Layout):
    """A linear layout (extension X2, spec/ALGEBRA.md; Triton's LinearLayout): named in-dims with one
    basis vector per input bit, out-dims with power-of-two sizes; the value of an input is the XOR
    of the bases its bits select.

        LinearLayout([("lane", [[1, 0], [2, 0]]), ("register", [[0, 1]])], [("dim0", 4), ("dim1", 2)])
        LinearLayout("linear[lane=[(1,0),(2,0)], register=[(0,1)] -> dim0=4, dim1=2]")
        LinearLayout(triton_layout)            # triton._C.libtriton.linear_layout.LinearLayout
        LinearLayout.from_cute("Sw<3,3,3> o 0 o (8,64):(64,1)", ins=..., outs=...)

    Calling it, L(i), takes the flat index (the first in-dim least significant) and answers the
    flattened value (the first out-dim fastest); L.apply(lane=5, register=1) takes and answers named
    values as Triton's apply does. Every op runs through the protocol registry (`tfspec serve`'s
    answers); refusals raise tfspec.SpecError with .rule and .clause."""

    def __init__(self, bases: Any, out_dims: Optional[Sequence[Tuple[str, int]]] = None) -> None:
        if out_dims is not None:
            obj = {"kind": "linear", "bases": [[n, [list(v) for v in vs]] for n, vs in bases],
                   "out_dims": [[n, int(s)] for n, s in out_dims]}
        elif hasattr(bases, "bases") and hasattr(bases, "out_dims"):  # Triton's own object, or another LinearLayout
            obj = {"kind": "linear", "bases": [[n, [list(v) for v in vs]] for n, vs in bases.bases],
                   "out_dims": [[n, int(s)] for n, s in bases.out_dims]}
        elif isinstance(bases, Layout):
            obj = bases.to_json()
        else:
            obj = bases
        Layout.__init__(self, obj)
        if self.kind != "linear":
            raise TypeError("LinearLayout takes a linear layout; %s is a %s layout (convert it with LinearLayout.from_cute)" % (self, self.kind))

    @property
    def bases(self) -> List[Tuple[str, List[List[int]]]]:
        """[(in-dim name, [basis vector, ...]), ...] as Triton's .bases lists them."""
        return [(n, [list(v) for v in vs]) for n, vs in self.to_json()["bases"]]

    @property
    def out_dims(self) -> List[Tuple[str, int]]:
        """[(out-dim name, size), ...] as Triton's .out_dims lists them."""
        return [(n, s) for n, s in self.to_json()["out_dims"]]

    @property
    def in_dims(self) -> List[Tuple[str, int]]:
        return [(n, 1 << len(vs)) for n, vs in self.bases]

    def apply(self, **ins: int) -> Dict[str, int]:
        """Named inputs -> named outputs (a missing in-dim is 0), as Triton's apply."""
        index, shift = 0, 0
        for name, size in self.in_dims:
            value = int(ins.pop(name, 0))
            if not 0 <= value < size:
                raise ValueError("in-dim %s takes 0..%d; got %d" % (name, size - 1, value))
            index |= value << shift
            shift += size.bit_length() - 1
        if ins:
            raise ValueError("no in-dim named %s" % ", ".join(sorted(ins)))
        flat, out = self(index), {}  # type: Tuple[int, Dict[str, int]]
        for name, size in self.out_dims:
            out[name] = flat % size
            flat //= size
        return out

    def compose(self, outer: Any) -> "LinearLayout":
        """outer(self(x)), Triton's self.compose(outer)."""
        return LinearLayout(_call("compose", self, outer))

    def invert(self) -> "LinearLayout":
        return LinearLayout(_call("invert", self))

    def pseudo_invert(self) -> "LinearLayout":
        """B with self(B(y)) == y, B(y) the smallest index self maps to y (self surjective)."""
        return LinearLayout(_call("pseudo_invert", self))

    def __mul__(self, outer: Any) -> "LinearLayout":
        """Triton's operator*: self's bits least significant on shared dims."""
        return LinearLayout(_call("linear_product", self, outer))

    def reshape_ins(self, dims: Sequence[Tuple[str, int]]) -> "LinearLayout":
        return LinearLayout(_call("reshape_ins", self, ",".join("%s=%d" % d for d in dims)))

    def reshape_outs(self, dims: Sequence[Tuple[str, int]]) -> "LinearLayout":
        return LinearLayout(_call("reshape_outs", self, ",".join("%s=%d" % d for d in dims)))

    def transpose_ins(self, order: Sequence[str]) -> "LinearLayout":
        return LinearLayout(_call("transpose_ins", self, ",".join(order)))

    def transpose_outs(self, order: Sequence[str]) -> "LinearLayout":
        return LinearLayout(_call("transpose_outs", self, ",".join(order)))

    def is_injective(self) -> bool:
        return bool(_call("injective", self)["injective"])

    def is_surjective(self) -> bool:
        return bool(_call("surjective", self))

    def is_invertible(self) -> bool:
        return bool(_call("invertible", self))

    def equivalent(self, other: Any, inverse: bool = False) -> Dict[str, Any]:
        """The protocol's `equivalent` result: {"equivalent", "method", "counterexample"?, ...}."""
        result: Dict[str, Any] = _call("equivalent", self, other, inverse) if inverse else _call("equivalent", self, other)
        return result

    def to_cute(self) -> Layout:
        """The CuTe layout of the same function (plain, or one swizzle over a plain layout)."""
        layout: Layout = _call("to_cute", self)
        return layout

    @classmethod
    def from_cute(cls, layout: Any, ins: Optional[Sequence[Tuple[str, int]]] = None,
                  outs: Optional[Sequence[Tuple[str, int]]] = None) -> "LinearLayout":
        """A CuTe layout (swizzled too) with power-of-two extents, when it is F2-linear; ins/outs as
        [(name, size), ...] (default: one in-dim per top-level mode, one out-dim `offset`)."""
        kw: Dict[str, str] = {}
        if ins is not None:
            kw["ins"] = ",".join("%s=%d" % d for d in ins)
        if outs is not None:
            kw["outs"] = ",".join("%s=%d" % d for d in outs)
        return cls(_call("to_linear", layout, **kw))

    @classmethod
    def from_triton(cls, obj: Any, shape: Optional[Sequence[int]] = None) -> "LinearLayout":
        """From a Triton layout object (spec/TRITON.md §2):
        - triton._C.libtriton.linear_layout.LinearLayout (its .bases and .out_dims);
        - gluon's DistributedLinearLayout(reg_bases, lane_bases, warp_bases, block_bases, shape):
          in-dims register, lane, warp, block, out-dims dim0.. of its shape;
        - gluon's SharedLinearLayout(offset_bases, block_bases, alignment): in-dims offset, block,
          out-dims dim0.. of its shape (the alignment is an address property, not a layout's);
        - any other gluon layout (BlockedLayout, NVMMADistributedLayout, SliceLayout,
          DotOperandLayout, SwizzledSharedLayout, NVMMASharedLayout, ...) on `shape`, through
          Triton's own to_linear_layout (triton must be importable; no GPU needed).
        `shape` overrides a linear layout object's own shape."""
        if hasattr(obj, "bases") and hasattr(obj, "out_dims"):
            return cls(obj)
        if hasattr(obj, "reg_bases") and hasattr(obj, "lane_bases"):
            ins = [("register", obj.reg_bases), ("lane", obj.lane_bases), ("warp", getattr(obj, "warp_bases", [])),
                   ("block", getattr(obj, "block_bases", []))]
            return cls._from_gluon_bases(ins, obj, shape)
        if hasattr(obj, "offset_bases"):
            return cls._from_gluon_bases([("offset", obj.offset_bases), ("block", getattr(obj, "block_bases", []))], obj, shape)
        if hasattr(obj, "_to_ir"):  # a gluon layout given by its parameters
            if shape is None:
                raise TypeError("LinearLayout.from_triton: a %s is a layout of a tensor shape; give it: "
                                "LinearLayout.from_triton(layout, shape=[M, N])" % type(obj).__name__)
            return cls.from_triton(_gluon_to_linear_layout(obj, shape))
        raise TypeError("LinearLayout.from_triton takes Triton's LinearLayout or a gluon layout "
                        "(DistributedLinearLayout, SharedLinearLayout, BlockedLayout, ...); got %s" % type(obj).__name__)

    @classmethod
    def _from_gluon_bases(cls, ins: Sequence[Tuple[str, Any]], obj: Any, shape: Optional[Sequence[int]]) -> "LinearLayout":
        dims = [int(s) for s in (shape if shape is not None else obj.shape)]
        bases = [(n, [[int(x) for x in v] for v in (vs or [])]) for n, vs in ins]
        for name, vs in bases:
            if any(len(v) != len(dims) for v in vs):
                raise ValueError("LinearLayout.from_triton: a %s basis has %s entries, the shape %s has %d dims"
                                 % (name, [len(v) for v in vs if len(v) != len(dims)][0], dims, len(dims)))
        return cls(bases, [("dim%d" % i, s) for i, s in enumerate(dims)])

    def to_triton(self) -> Any:
        """This layout as Triton's LinearLayout (triton must be importable; no GPU needed)."""
        from triton._C.libtriton import linear_layout  # type: ignore[import-untyped,import-not-found,unused-ignore]
        return linear_layout.LinearLayout.from_bases(self.bases, [n for n, _ in self.out_dims], [s for _, s in self.out_dims], False)

    def __repr__(self) -> str:
        return "LinearLayout('%s')" % self


def _gluon_to_linear_layout(layout: Any, shape: Sequence[int]) -> Any:
    """Triton's own linear layout of a gluon layout on `shape` (gluon's to_linear_layout)."""
    try:
        from triton._C.libtriton import gluon_ir, ir  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:
        raise TypeError("LinearLayout.from_triton: converting a %s needs triton (python3 -m pip install triton): %s"
                        % (type(layout).__name__, e)) from e
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    return builder.to_linear_layout(layout._to_ir(builder), [int(s) for s in shape])
