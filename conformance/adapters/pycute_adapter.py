#!/usr/bin/env python3
"""A conformance adapter over pycute (CUTLASS's python/pycute, pure Python): the protocol of
spec/PROTOCOL.md on stdin/stdout, each request answered by the pycute function of the same name.
pycute must be importable (PYTHONPATH=/path/to/cutlass/python). Run it against the corpus:

    PYTHONPATH=/path/to/cutlass/python tfspec conform --impl "python3 conformance/adapters/pycute_adapter.py"

Three parts, kept apart so the protocol loop can later move onto a shared adapter base:
the argument codec (JSON / text notation <-> pycute values), the op table (OPS: op name ->
function of the args), and the protocol loop (serve). Nothing of tfspec computes an answer.

Answers: pycute's value as `result`; an AssertionError (pycute's precondition checks) as an
`error` with rule `pycute-assert`; any other exception pycute raises as `pycute-<ExceptionName>`;
inputs pycute cannot hold (symbolic dims, None, composed layouts) and ops it lacks as `skipped`.
"""
import json
import sys

import pycute


class Skip(Exception):
    """Answer `skipped` with this reason."""


class Refusal(Exception):
    def __init__(self, rule, message):
        super().__init__(message)
        self.rule = rule


# ---- the argument codec ---------------------------------------------------------------------------

def parse_tuple(s, i=0):
    """The text notation's IntTuple at s[i:]: an integer or a parenthesized list."""
    if i < len(s) and s[i] == "(":
        items, i = [], i + 1
        while True:
            v, i = parse_tuple(s, i)
            items.append(v)
            if i < len(s) and s[i] == ":":
                raise Skip("a by-mode tiler in the text notation is not parsed by this adapter")
            if i < len(s) and s[i] == ",":
                i += 1
                continue
            if i >= len(s) or s[i] != ")":
                raise Refusal("parse-error", "expected ')' in " + s)
            return tuple(items), i + 1
    j = i + (1 if i < len(s) and s[i] == "-" else 0)
    while j < len(s) and s[j].isdigit():
        j += 1
    if j == i or not s[i:j].lstrip("-"):
        raise Skip("not a concrete layout (symbolic, None or composed): pycute holds integers only")
    return int(s[i:j]), j


def inttuple(j):
    """A JSON IntTuple as pycute's nested tuples of ints."""
    if isinstance(j, list):
        return tuple(inttuple(x) for x in j)
    if isinstance(j, bool) or j is None:
        raise Skip("not a concrete integer (None or boolean): pycute holds integers only")
    if isinstance(j, int):
        return j
    if isinstance(j, str) and j.lstrip("-").isdigit():
        return int(j)
    raise Skip("not a concrete integer (symbolic): pycute holds integers only")


def layout(j):
    """A layout argument (JSON object or text notation) as a pycute.Layout."""
    if isinstance(j, str):
        s = j.replace(" ", "")
        shape, i = parse_tuple(s)
        if i == len(s):
            return pycute.Layout(shape)
        if s[i] != ":":
            raise Skip("not a plain concrete layout (composed or trailing text)")
        stride, k = parse_tuple(s, i + 1)
        if k != len(s):
            raise Skip("not a plain concrete layout (composed or trailing text)")
        return pycute.Layout(shape, stride)
    if isinstance(j, dict) and j.get("kind", "layout") == "layout" and "shape" in j:
        key = "stride" if "stride" in j else "strides"
        if key in j and j[key] is None:
            raise Skip("an un-materialized stride (§7.1.2) has no pycute form")
        return pycute.Layout(inttuple(j["shape"]), inttuple(j[key]) if key in j else None)
    raise Skip("not a plain layout (composed, shard or malformed): no pycute Layout form")


def tiler(j):
    """A tiler: an integer, a layout, {"tiler": [T0, T1, ...]} or a bare shape "(2,4)" (both
    by-mode: pycute's tuple of tilers)."""
    if isinstance(j, int) and not isinstance(j, bool):
        return j
    if isinstance(j, str) and ":" not in j and j.strip().startswith("("):
        shape, i = parse_tuple(j.replace(" ", ""))
        return shape
    if isinstance(j, dict) and "tiler" in j:
        return tuple(tiler(t) for t in j["tiler"])
    return layout(j)


def out(v):
    """A pycute value as protocol JSON."""
    if isinstance(v, pycute.Layout):
        return {"kind": "layout", "shape": out(v.shape), "stride": out(v.stride)}
    if isinstance(v, tuple):
        return [out(x) for x in v]
    return v


# ---- the op table: protocol op -> pycute ---------------------------------------------------------

def strict(a):
    if a.get("domain", "strict") != "strict":
        raise Skip('domain "extend" (D15) has no pycute counterpart')
    return a


def binary(fn, second="tiler"):
    return lambda a: fn(layout(strict(a)["a"]), tiler(a[second]))


def eval_op(a):
    coord = inttuple(a["coord"])
    return layout(a["layout"])(coord)


def complement_op(a):
    lay = layout(a["layout"])
    if a.get("cotarget") is None:
        return pycute.complement(lay, pycute.cosize(lay))  # the protocol's default cotarget (pycute's is 1)
    return pycute.complement(lay, inttuple(a["cotarget"]))


def with_profile(fn):
    def op(a):
        lay = layout(a["layout"])
        return fn(lay, inttuple(a["profile"])) if a.get("profile") is not None else fn(lay)
    return op


OPS = {
    "flatten": lambda a: pycute.flatten(inttuple(a["t"])),
    "product": lambda a: pycute.product(inttuple(a["t"])),
    "prefix_product": lambda a: pycute.prefix_product(inttuple(a["t"])),
    "shape_div": lambda a: pycute.shape_div(inttuple(a["a"]), inttuple(a["b"])),
    "crd2idx": lambda a: pycute.crd2idx(inttuple(a["coord"]), inttuple(a["shape"]),
                                        inttuple(a["stride"]) if a.get("stride") is not None else None),
    "idx2crd": lambda a: pycute.idx2crd(inttuple(a["index"]), inttuple(a["shape"])),
    "crd2crd": lambda a: pycute.crd2crd(inttuple(a["coord"]), inttuple(a["dst"]),
                                        inttuple(a["src"]) if a.get("src") is not None else None),
    "size": lambda a: pycute.size(layout(a["layout"])),
    "cosize": lambda a: pycute.cosize(layout(a["layout"])),
    "eval": eval_op,
    "coalesce": with_profile(pycute.coalesce),
    "filter": with_profile(pycute.filter),
    "complement": complement_op,
    "right_inverse": lambda a: pycute.right_inverse(layout(a["layout"])),
    "left_inverse": lambda a: pycute.left_inverse(layout(a["layout"])),
    "composition": binary(pycute.composition),
    "logical_divide": binary(pycute.logical_divide),
    "zipped_divide": binary(pycute.zipped_divide),
    "tiled_divide": binary(pycute.tiled_divide),
    "logical_product": binary(pycute.logical_product),
    "zipped_product": binary(pycute.zipped_product),
    "tiled_product": binary(pycute.tiled_product),
}


def answer(op, args):
    """One request's reply body: {"result"}, {"error"} or {"skipped"}."""
    if op not in OPS:
        return {"skipped": {"reason": "no pycute counterpart: " + str(op)}}
    try:
        return {"result": out(OPS[op](args))}
    except Skip as e:
        return {"skipped": {"reason": str(e)}}
    except Refusal as e:
        return {"error": {"rule": e.rule, "message": str(e)}}
    except KeyError as e:
        return {"error": {"rule": "protocol-missing-arg", "message": "missing argument " + str(e)}}
    except AssertionError as e:
        return {"error": {"rule": "pycute-assert", "message": "pycute's assertion failed " + str(e)}}
    except (ArithmeticError, TypeError, ValueError, IndexError, RecursionError) as e:
        return {"error": {"rule": "pycute-" + type(e).__name__, "message": repr(e)}}


# ---- the protocol loop ------------------------------------------------------------------------------

def serve(inp, outp, name, ops, answer_fn):
    for line in inp:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError:
            req = None
        if not isinstance(req, dict):
            reply = {"seq": None, "error": {"rule": "protocol-malformed", "clause": "-", "message": "not a JSON object"}}
        elif req.get("cmd") == "start":
            reply = {"cmd": "start", "protocol": 1, "implementation": {"name": name, "version": "adapter 1"}, "ops": sorted(ops)}
        elif req.get("cmd") == "stop":
            print(json.dumps({"cmd": "stop"}), file=outp, flush=True)
            return
        else:
            reply = {"seq": req.get("seq"), **answer_fn(req.get("op"), req.get("args", {}))}
        print(json.dumps(reply), file=outp, flush=True)


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    serve(sys.stdin, sys.stdout, "pycute (CUTLASS python/pycute)", OPS, answer)
