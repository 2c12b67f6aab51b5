#!/usr/bin/env python3
"""A worked example of an implementation under test: part of the layout algebra (§1, §3) behind
the tfspec protocol (spec/PROTOCOL.md), standard library only. Run it against the corpus:

    tfspec conform --impl "python3 conformance/examples/layout_adapter.py"

It answers the handshake with the ops it supports (every other case counts as unsupported), then
one JSON reply per request line: {"seq", "result"} or {"seq", "error": {"rule", "message"}}.
`--broken` plants one bug (cosize is one short) to show what a departure looks like.
"""
import json
import sys

BROKEN = "--broken" in sys.argv


class SpecError(Exception):
    def __init__(self, rule, message):
        super().__init__(message)
        self.rule = rule


# ---- IntTuples and layouts: JSON, or the text notation for concrete layouts ----------------------

def parse_tuple(s, i=0):
    if i < len(s) and s[i] == "(":
        items, i = [], i + 1
        while True:
            v, i = parse_tuple(s, i)
            items.append(v)
            if i < len(s) and s[i] == ",":
                i += 1
                continue
            if i >= len(s) or s[i] != ")":
                raise SpecError("parse-error", "expected ')' in " + s)
            return items, i + 1
    j = i + (1 if i < len(s) and s[i] == "-" else 0)
    while j < len(s) and s[j].isdigit():
        j += 1
    if j == i or not s[i:j].lstrip("-"):
        raise SpecError("needs-concrete", "only integer layouts here: " + s)
    return int(s[i:j]), j


def flat(t):
    return [x for v in t for x in flat(v)] if isinstance(t, list) else [t]


def product(t):
    n = 1
    for x in flat(t):
        n *= x
    return n


def prefix_product(t, init=1):
    if isinstance(t, list):
        out = []
        for v in t:
            out.append(prefix_product(v, init))
            init *= product(v)
        return out
    return init


def inttuple(j):
    if isinstance(j, list):
        return [inttuple(x) for x in j]
    if isinstance(j, bool) or not isinstance(j, int):
        if isinstance(j, str) and j.lstrip("-").isdigit():
            return int(j)
        raise SpecError("needs-concrete", "only integers here: " + json.dumps(j))
    return j


def layout(j):
    """(shape, stride) of a layout argument."""
    if isinstance(j, str):
        s = j.replace(" ", "")
        shape, i = parse_tuple(s)
        if i == len(s):
            return shape, prefix_product(shape)
        if s[i] != ":":
            raise SpecError("parse-error", "expected ':' in " + j)
        stride, k = parse_tuple(s, i + 1)
        if k != len(s):
            raise SpecError("parse-error", "trailing text in " + j)
    elif isinstance(j, dict) and j.get("kind", "layout") == "layout":
        shape = inttuple(j["shape"])
        stride = inttuple(j["stride"]) if "stride" in j else prefix_product(shape)
    else:
        raise SpecError("needs-concrete", "only plain layouts here")
    if any(e < 1 for e in flat(shape)):
        raise SpecError("extent-positive", "an extent is >= 1")
    if len(flat(shape)) != len(flat(stride)):
        raise SpecError("stride-congruent", "stride not congruent with shape")
    return shape, stride


def idx2crd(i, shape):
    if not isinstance(shape, list):
        return i
    out = []
    for s in shape:
        out.append(idx2crd(i % product(s), s))
        i //= product(s)
    return out


def crd2idx(coord, shape, stride):
    if isinstance(coord, int):
        coord = idx2crd(coord, shape)
    return sum(c * d for c, d in zip(flat(coord), flat(stride)))


def evaluate(shape, stride, coord):
    if isinstance(coord, int):
        if not 0 <= coord < product(shape):
            raise SpecError("coord-in-domain", "index outside the domain")
        coord = idx2crd(coord, shape)
    if len(flat(coord)) != len(flat(shape)) or any(not 0 <= c < s for c, s in zip(flat(coord), flat(shape))):
        raise SpecError("coord-in-domain", "coordinate outside the domain")
    return crd2idx(coord, shape, stride)


def depth(t):
    return 1 + max((depth(v) for v in t), default=0) if isinstance(t, list) else 0


def enumerable(shape):
    if product(shape) > 1 << 20:
        raise SpecError("injectivity-undecided", "more points than this adapter enumerates")


def cosize(shape, stride):
    enumerable(shape)
    largest = max(crd2idx(i, shape, stride) for i in range(product(shape)))
    return largest if BROKEN else largest + 1


def injective(shape, stride):
    enumerable(shape)
    offsets = [crd2idx(i, shape, stride) for i in range(product(shape))]
    return {"injective": len(set(offsets)) == len(offsets)}


OPS = {
    "rank": lambda a: len(inttuple(a["t"])) if isinstance(inttuple(a["t"]), list) else 1,
    "depth": lambda a: depth(inttuple(a["t"])),
    "flatten": lambda a: flat(inttuple(a["t"])),
    "product": lambda a: product(inttuple(a["t"])),
    "prefix_product": lambda a: prefix_product(inttuple(a["t"])),
    "idx2crd": lambda a: idx2crd(inttuple(a["index"]), inttuple(a["shape"])),
    "crd2idx": lambda a: crd2idx(inttuple(a["coord"]), inttuple(a["shape"]),
                                 inttuple(a["stride"]) if "stride" in a else prefix_product(inttuple(a["shape"]))),
    "size": lambda a: product(layout(a["layout"])[0]),
    "cosize": lambda a: cosize(*layout(a["layout"])),
    "eval": lambda a: evaluate(*layout(a["layout"]), inttuple(a["coord"])),
    "injective": lambda a: injective(*layout(a["layout"])),
}


def reply(req):
    if req.get("cmd") == "start":
        return {"cmd": "start", "protocol": 1, "implementation": {"name": "layout_adapter.py" + (" --broken" if BROKEN else ""), "version": "1"},
                "ops": sorted(OPS)}
    if req.get("cmd") == "stop":
        return {"cmd": "stop"}
    seq, op = req.get("seq"), req.get("op")
    if op not in OPS:
        return {"seq": seq, "skipped": {"reason": "unsupported op"}}
    try:
        return {"seq": seq, "result": OPS[op](req.get("args", {}))}
    except SpecError as e:
        return {"seq": seq, "error": {"rule": e.rule, "message": str(e)}}
    except (KeyError, TypeError, ValueError, RecursionError) as e:
        return {"seq": seq, "error": {"rule": "protocol-bad-args", "message": repr(e)}}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        out = reply(req)
        print(json.dumps(out), flush=True)
        if req.get("cmd") == "stop":
            break


if __name__ == "__main__":
    main()
