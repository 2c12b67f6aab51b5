"""The JSON forms of spec/PROTOCOL.md ("Encodings") as plain Python values, both ways.

In: IntTuples and coordinates become ints and tuples (a decimal string is an int, "_" is None);
a layout argument, in JSON or in the text notation, becomes a `Layout(shape, stride)` of ints and
tuples; a tiler becomes a Layout or, by mode, a tuple of them. Only concrete values: a symbolic
extent or a composed/shard layout is refused with `needs-concrete` (§1), which is what an
implementation without symbolic shapes answers; text that is not the plain notation (e.g. an
extension's `Sw<B,M,S>`) is a `parse-error`, a JSON kind outside §2's three `unknown-layout-kind`. An op that wants the raw JSON says `raw=True`.

Out: anything with `.shape` and `.stride` (this Layout, a pycute Layout, ...) becomes layout JSON,
tuples and lists become arrays, integers beyond 2^53 decimal strings, dicts are converted member
by member.
"""
from typing import Any, List, NamedTuple, Tuple

from .errors import Refused, Skipped

class Layout(NamedTuple):
    """A concrete layout: shape and stride, ints and nested tuples."""
    shape: Any
    stride: Any

_EXACT = 1 << 53


def flat(t: Any) -> List[Any]:
    """The leaves of an IntTuple, left to right."""
    return [x for v in t for x in flat(v)] if isinstance(t, (tuple, list)) else [t]


def product(t: Any) -> int:
    n = 1
    for x in flat(t):
        n *= x
    return n


def prefix_product(t: Any, init: int = 1) -> Any:
    """Compact colexicographic strides of a shape (§3: an absent stride)."""
    if isinstance(t, (tuple, list)):
        out = []
        for v in t:
            out.append(prefix_product(v, init))
            init *= product(v)
        return tuple(out)
    return init


# ---- text notation (concrete layouts: "(2,(3,4)):(1,(2,6))", or a shape alone) ---------------

def _parse_tuple(s: str, i: int) -> Tuple[Any, int]:
    if i < len(s) and s[i] == "(":
        items: List[Any] = []
        i += 1
        while True:
            v, i = _parse_tuple(s, i)
            items.append(v)
            if i < len(s) and s[i] == ",":
                i += 1
                continue
            if i >= len(s) or s[i] != ")":
                raise Refused("parse-error", "expected ')' in " + s)
            return tuple(items), i + 1
    j = i + (1 if i < len(s) and s[i] == "-" else 0)
    while j < len(s) and s[j].isdigit():
        j += 1
    if j == i or not s[i:j].lstrip("-"):
        k = i
        while k < len(s) and (s[k].isalnum() or s[k] == "_"):
            k += 1
        if k > i and not s[i].isdigit() and (k == len(s) or s[k] not in "<"):
            raise Refused("needs-concrete", "only integer layouts here: " + s)  # a symbolic extent
        raise Refused("parse-error", "not the notation of a plain layout: " + s)  # e.g. an extension's Sw<B,M,S>
    return int(s[i:j]), j


def parse_layout_text(text: str) -> Layout:
    s = text.replace(" ", "")
    shape, i = _parse_tuple(s, 0)
    if i == len(s):
        return Layout(shape, prefix_product(shape))
    if s[i] != ":":
        raise Refused("parse-error", "expected ':' in " + text)
    stride, k = _parse_tuple(s, i + 1)
    if k != len(s):
        raise Refused("parse-error", "trailing text in " + text)
    return Layout(shape, stride)


# ---- JSON in ----------------------------------------------------------------------------------

def inttuple(j: Any) -> Any:
    if isinstance(j, list):
        return tuple(inttuple(x) for x in j)
    if isinstance(j, str) and j.lstrip("-").isdigit():
        return int(j)
    if isinstance(j, bool) or not isinstance(j, int):
        raise Refused("needs-concrete", "only integers here: " + repr(j))
    return j


def coord(j: Any) -> Any:
    if j == "_":
        return None
    if isinstance(j, list):
        return tuple(coord(x) for x in j)
    return inttuple(j)


def layout(j: Any) -> Layout:
    """A layout argument (JSON object or text), checked to be a layout of positive extents. A
    linear layout (extension X2, Triton's kind) is skipped: an implementation of the bare spec
    need not know it."""
    if (isinstance(j, str) and j.lstrip().startswith("linear")) or (isinstance(j, dict) and j.get("kind") == "linear"):
        raise Skipped("a linear layout (extension X2): this adapter implements the spec's layouts only")
    if isinstance(j, str):
        lay = parse_layout_text(j)
    elif isinstance(j, dict) and j.get("kind", "layout") == "layout" and "shape" in j:
        shape = inttuple(j["shape"])
        stride = j.get("stride", j.get("strides"))  # D11: both spellings
        lay = Layout(shape, prefix_product(shape) if stride is None else inttuple(stride))
    else:
        kind = j.get("kind") if isinstance(j, dict) else None
        if kind not in (None, "layout", "composed", "shard"):  # §2: the three kinds of layout
            raise Refused("unknown-layout-kind", "a layout's kind is layout, composed or shard, not " + repr(kind))
        raise Refused("needs-concrete", "only plain layouts here")
    if any(e < 1 for e in flat(lay.shape)):
        raise Refused("extent-positive", "an extent is >= 1")
    if _structure(lay.shape) != _structure(lay.stride):
        raise Refused("stride-congruent", "stride not congruent with shape")
    return lay


def tiler(j: Any) -> Any:
    """A layout, an integer n (= n:1), or {"tiler": [T0, T1, ...]} (by mode: a tuple)."""
    if isinstance(j, dict) and "tiler" in j:
        return tuple(tiler(t) for t in j["tiler"])
    if isinstance(j, int) and not isinstance(j, bool):
        return Layout(j, 1)
    return layout(j)


def _structure(t: Any) -> Any:
    return tuple(_structure(v) for v in t) if isinstance(t, (tuple, list)) else None


# ---- JSON out ---------------------------------------------------------------------------------

def to_json(v: Any) -> Any:
    if hasattr(v, "shape") and hasattr(v, "stride") and not isinstance(v, dict):
        return {"kind": "layout", "shape": to_json(v.shape), "stride": to_json(v.stride)}
    if isinstance(v, bool) or v is None or isinstance(v, (str, float)):
        return v
    if isinstance(v, int):
        return v if -_EXACT <= v <= _EXACT else str(v)
    if isinstance(v, (tuple, list)):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {str(k): to_json(x) for k, x in v.items()}
    raise TypeError("no protocol form for a " + type(v).__name__)
