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
