#!/usr/bin/env python3
"""A worked example of an implementation under test: part of the layout algebra (§1, §3) behind
the tfspec protocol (spec/PROTOCOL.md), written on the adapter base `tfspec.adapter` (pure
Python, python/tfspec/adapter: it does the handshake, the replies and the JSON forms). Run it
against the corpus:

    tfspec conform --impl "python3 conformance/examples/layout_adapter.py"

Layout arguments arrive as Layout(shape, stride) of ints and tuples; `Refused(rule)` is an error
reply. `--broken` plants one bug (cosize is one short) to show what a departure looks like.
"""
import os
import sys
from typing import Any, Dict, List, Optional

try:
    import tfspec.adapter  # noqa: F401  (installed, or on PYTHONPATH)
except ImportError:  # run from the repository: the base is in python/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from tfspec.adapter import Layout, Refused, flat, op, prefix_product, product, serve

BROKEN = "--broken" in sys.argv


def idx2crd(i: int, shape: Any) -> Any:
    if not isinstance(shape, tuple):
        return i
    out: List[Any] = []
    for s in shape:
        out.append(idx2crd(i % product(s), s))
        i //= product(s)
    return tuple(out)


def crd2idx(coord: Any, shape: Any, stride: Optional[Any] = None) -> int:
    stride = prefix_product(shape) if stride is None else stride
    if isinstance(coord, int):
        coord = idx2crd(coord, shape)
    return sum(c * d for c, d in zip(flat(coord), flat(stride)))


def depth(t: Any) -> int:
    return 1 + max((depth(v) for v in t), default=0) if isinstance(t, tuple) else 0


def offsets(layout: Layout) -> List[int]:
    if product(layout.shape) > 1 << 20:
        raise Refused("injectivity-undecided", "more points than this adapter enumerates")
    return [crd2idx(i, *layout) for i in range(product(layout.shape))]


op("rank")(lambda t: len(t) if isinstance(t, tuple) else 1)
op("depth")(depth)
op("flatten")(flat)
op("product")(product)
op("prefix_product")(prefix_product)
op("idx2crd")(idx2crd)
op("crd2idx")(crd2idx)
op("size")(lambda layout: product(layout.shape))


@op("cosize")
def cosize(layout: Layout) -> int:
    largest = max(offsets(layout))
    return largest if BROKEN else largest + 1


@op("eval")
def evaluate(layout: Layout, coord: Any) -> int:
    shape = layout.shape
    if isinstance(coord, int):
        if not 0 <= coord < product(shape):
            raise Refused("coord-in-domain", "index outside the domain")
        coord = idx2crd(coord, shape)
    if len(flat(coord)) != len(flat(shape)) or any(not 0 <= c < s for c, s in zip(flat(coord), flat(shape))):
        raise Refused("coord-in-domain", "coordinate outside the domain")
    return crd2idx(coord, *layout)


@op("injective")
def injective(layout: Layout) -> Dict[str, bool]:
    seen = offsets(layout)
    return {"injective": len(set(seen)) == len(seen)}


if __name__ == "__main__":
    serve(name="layout_adapter.py" + (" --broken" if BROKEN else ""), version="1")
