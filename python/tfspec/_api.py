"""The Python layer over tfspec._tfspec: one function per protocol op (spec/PROTOCOL.md), prove(),
check(), the verdict and check result objects, pycute interop. Every op runs through the same
registry as `tfspec serve` and the CLI, so a result here is the CLI's result."""
import inspect
from collections import namedtuple

from . import _tfspec
from ._tfspec import Layout, ShardLayout, SpecError, _call

# Op names that the Python layer spells differently or wraps (check, prove) or leaves to _call.
_SPECIAL = {"check", "shard.check", "layout.rules", "rules", "shard.rules"}


def _make(protocol_name, clause, summary, params):
    def fn(*args, **kwargs):
        return _call(protocol_name, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = protocol_name.split(".")[-1].replace("-", "_")
    fn.__doc__ = "%s (%s): %s\n\nThe protocol op `%s`; arguments: %s. Text arguments are read as the CLI reads " \
                 "them (notation), Layout objects and JSON-like values as given." % (
                     fn.__name__, clause, summary, protocol_name,
                     ", ".join(n + ("?" if opt else "") for n, opt, _ in params) or "none")
    fn.__signature__ = inspect.Signature([
        inspect.Parameter(n.replace("-", "_"), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=None if opt else inspect.Parameter.empty) for n, opt, _ in params])
    return fn


def _op_functions():
    """{python name: function} for the layout, shard, propagate and multigpu groups."""
    out = {}
    for protocol_name, group, name, clause, summary, params in _tfspec._ops():
        if group == "prove" or protocol_name in _SPECIAL:
            continue
        fn = _make(protocol_name, clause, summary, params)
        out.setdefault(fn.__name__, fn)  # a layout op keeps its name when a shard op shares it
    return out


Violation = namedtuple("Violation", ["rule", "clause", "message", "path"])


class CheckResult:
    """check(): all violations (the object breaks the rule) and undecided entries (the reference
    could not decide within its limits; never a violation). `ok` means no violation."""

    def __init__(self, result):
        self.verdict = result.get("verdict", "ok" if result.get("ok") else "violation")
        self.ok = bool(result.get("ok"))
        self.violations = [Violation(**{k: v.get(k, "") for k in Violation._fields}) for v in result.get("violations", ())]
        self.undecided = [Violation(**{k: v.get(k, "") for k in Violation._fields}) for v in result.get("undecided", ())]
        self.layout = result.get("layout")

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return "CheckResult(%s, violations=%s, undecided=%s)" % (self.verdict, [v.rule for v in self.violations],
                                                                 [u.rule for u in self.undecided])


def check(layout, **kwargs):
    """Every rule violation of a layout (§2 TensorType.layout gate) or of a shard layout (§7; the
    keyword arguments stage, storage, shape, mesh go to `shard.check`)."""
    text = layout if isinstance(layout, str) else ""
    shard = isinstance(layout, ShardLayout) or bool(kwargs) or "@" in text or text.lstrip().startswith("shard")
    return CheckResult(_call("shard.check" if shard else "check", layout, **kwargs))


class Verdict:
    """prove(): PROVED (under the stated assumptions), REFUTED (with a counterexample the
    reference replayed) or UNKNOWN (with the reason). spec/PROVE.md; `bool(v)` is v.proved."""

    def __init__(self, result):
        self.result = result
        self.goal = result.get("goal")
        self.clause = result.get("clause")
        self.verdict = result.get("verdict")
        self.method = result.get("method")
        self.scope = result.get("scope")
        self.counterexample = result.get("counterexample")
        self.reason = result.get("reason")
        self.assumptions = result.get("assumptions", ())
        self.attempts = result.get("attempts", ())
        self.seconds = result.get("seconds")

    proved = property(lambda self: self.verdict == "PROVED")
    refuted = property(lambda self: self.verdict == "REFUTED")
    unknown = property(lambda self: self.verdict == "UNKNOWN")

    def __bool__(self):
        return self.proved

    def __repr__(self):
        detail = {"PROVED": "method=%r, scope=%r" % (self.method, self.scope),
                  "REFUTED": "counterexample=%r" % (self.counterexample or {}).get("text"),
                  "UNKNOWN": "reason=%r" % self.reason}.get(self.verdict, "")
        return "Verdict(%s %s, %s)" % (self.verdict, self.goal, detail)


def prove(goal, *objects, assume=None, timeout=None, **kwargs):
    """prove('injective', '(M,N):(1,M)', assume=['M >= 1'], timeout=2.0) -> Verdict.

    goal: injective, in-bounds, fits-int32, fits-int64, equivalent, admissible, divides, shard
    (spec/PROVE.md); objects in the op's order; timeout in seconds per solver call."""
    if timeout is not None:
        kwargs["timeout_ms"] = max(1, int(round(timeout * 1000)))
    if assume is not None:
        kwargs["assume"] = [assume] if isinstance(assume, str) else list(assume)
    return Verdict(_call("prove." + goal.replace("_", "-"), *objects, **kwargs))


def _from_pycute(cls, obj):
    """A Layout from any object with .shape and .stride (pycute's Layout, CuTe DSL-like)."""
    return cls(obj.shape, obj.stride)


def _to_pycute(self):
    """This layout as a pycute.Layout (pycute must be importable)."""
    import pycute
    return pycute.Layout(self.shape, self.stride)


Layout.from_pycute = classmethod(_from_pycute)
Layout.to_pycute = _to_pycute


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

    def __init__(self, bases, out_dims=None):
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
    def bases(self):
        """[(in-dim name, [basis vector, ...]), ...] as Triton's .bases lists them."""
        return [(n, [list(v) for v in vs]) for n, vs in self.to_json()["bases"]]

    @property
    def out_dims(self):
        """[(out-dim name, size), ...] as Triton's .out_dims lists them."""
        return [(n, s) for n, s in self.to_json()["out_dims"]]

    @property
    def in_dims(self):
        return [(n, 1 << len(vs)) for n, vs in self.bases]

    def apply(self, **ins):
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
        flat, out = self(index), {}
        for name, size in self.out_dims:
            out[name] = flat % size
            flat //= size
        return out

    def compose(self, outer):
        """outer(self(x)), Triton's self.compose(outer)."""
        return LinearLayout(_call("compose", self, outer))

    def invert(self):
        return LinearLayout(_call("invert", self))

    def pseudo_invert(self):
        """B with self(B(y)) == y, B(y) the smallest index self maps to y (self surjective)."""
        return LinearLayout(_call("pseudo_invert", self))

    def __mul__(self, outer):
        """Triton's operator*: self's bits least significant on shared dims."""
        return LinearLayout(_call("linear_product", self, outer))

    def reshape_ins(self, dims):
        return LinearLayout(_call("reshape_ins", self, ",".join("%s=%d" % d for d in dims)))

    def reshape_outs(self, dims):
        return LinearLayout(_call("reshape_outs", self, ",".join("%s=%d" % d for d in dims)))

    def transpose_ins(self, order):
        return LinearLayout(_call("transpose_ins", self, ",".join(order)))

    def transpose_outs(self, order):
        return LinearLayout(_call("transpose_outs", self, ",".join(order)))

    def is_injective(self):
        return bool(_call("injective", self)["injective"])

    def is_surjective(self):
        return bool(_call("surjective", self))

    def is_invertible(self):
        return bool(_call("invertible", self))

    def equivalent(self, other, inverse=False):
        """The protocol's `equivalent` result: {"equivalent", "method", "counterexample"?, ...}."""
        return _call("equivalent", self, other, inverse) if inverse else _call("equivalent", self, other)

    def to_cute(self):
        """The CuTe layout of the same function (plain, or one swizzle over a plain layout)."""
        return _call("to_cute", self)

    @classmethod
    def from_cute(cls, layout, ins=None, outs=None):
        """A CuTe layout (swizzled too) with power-of-two extents, when it is F2-linear; ins/outs as
        [(name, size), ...] (default: one in-dim per top-level mode, one out-dim `offset`)."""
        kw = {}
        if ins is not None:
            kw["ins"] = ",".join("%s=%d" % d for d in ins)
        if outs is not None:
            kw["outs"] = ",".join("%s=%d" % d for d in outs)
        return cls(_call("to_linear", layout, **kw))

    @classmethod
    def from_triton(cls, obj):
        """From triton._C.libtriton.linear_layout.LinearLayout (its .bases and .out_dims)."""
        return cls(obj)

    def to_triton(self):
        """This layout as Triton's LinearLayout (triton must be importable; no GPU needed)."""
        from triton._C.libtriton import linear_layout
        return linear_layout.LinearLayout.from_bases(self.bases, [n for n, _ in self.out_dims], [s for _, s in self.out_dims], False)

    def __repr__(self):
        return "LinearLayout('%s')" % self
