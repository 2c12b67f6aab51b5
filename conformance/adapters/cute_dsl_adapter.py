#!/usr/bin/env python3
"""A conformance adapter over the CuTe DSL (`nvidia-cutlass-dsl`, module `cutlass.cute`): the
protocol of spec/PROTOCOL.md on stdin/stdout, each request answered by the `cutlass.cute` function
of the same name, on static layouts at trace time. No GPU is needed. Run it against the corpus:

    tfspec conform --impl "VENV/bin/python conformance/adapters/cute_dsl_adapter.py"

The DSL's layout algebra exists only while a `@cute.jit` function is traced (outside one,
`cute.make_layout` has no MLIR context), so the whole protocol loop runs inside one traced
function: every request becomes DSL calls whose static results are read back as Python ints and
tuples. Nothing of tfspec computes an answer; the codec below only turns JSON into the Python
ints and tuples `cute.make_layout` takes, and the DSL's layouts back into JSON.

Answers: the DSL's value as `result`; an exception the DSL raises (its MLIR verifier's
"Operation creation failed", its Python-side checks) as an `error` with the rule
`cute-dsl-<ExceptionName>`; inputs it cannot hold (symbolic dims, None, composed, shard or linear
layouts) and ops it lacks as `skipped`.
"""
import json
import os
import sys

import cutlass.cute as cute


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
        raise Skip("not a concrete layout (symbolic, None, composed or linear): static layouts only")
    return int(s[i:j]), j


def inttuple(j):
    """A JSON IntTuple as nested tuples of ints (what the DSL takes for a static IntTuple)."""
    if isinstance(j, list):
        return tuple(inttuple(x) for x in j)
    if isinstance(j, bool) or j is None:
        raise Skip("not a concrete integer (None or boolean): static layouts only")
    if isinstance(j, int):
        return j
    if isinstance(j, str) and j.lstrip("-").isdigit():
        return int(j)
    raise Skip("not a concrete integer (symbolic): static layouts only")


def layout(j):
    """A layout argument (JSON object or text notation) as a DSL layout (cute.make_layout)."""
    if isinstance(j, str):
        s = j.replace(" ", "")
        shape, i = parse_tuple(s)
        if i == len(s):
            return cute.make_layout(shape)
        if s[i] != ":":
            raise Skip("not a plain concrete layout (composed or trailing text)")
        stride, k = parse_tuple(s, i + 1)
        if k != len(s):
            raise Skip("not a plain concrete layout (composed or trailing text)")
        return cute.make_layout(shape, stride=stride)
    if isinstance(j, dict) and j.get("kind", "layout") == "layout" and "shape" in j:
        key = "stride" if "stride" in j else "strides"
        if key in j and j[key] is None:
            raise Skip("an un-materialized stride (§7.1.2) has no DSL form")
        shape = inttuple(j["shape"])
        return cute.make_layout(shape, stride=inttuple(j[key])) if key in j else cute.make_layout(shape)
    raise Skip("not a plain layout (composed, shard, linear or malformed): no static DSL Layout form")


def tiler(j):
    """A tiler: an integer, a layout, {"tiler": [T0, T1, ...]} or a bare shape "(2,4)" (both
    by-mode: the DSL's tuple of tilers)."""
    if isinstance(j, int) and not isinstance(j, bool):
        return j
    if isinstance(j, str) and ":" not in j and j.strip().startswith("("):
        shape, _ = parse_tuple(j.replace(" ", ""))
        return shape
    if isinstance(j, dict) and "tiler" in j:
        return tuple(tiler(t) for t in j["tiler"])
    return layout(j)


def out(v):
    """A DSL value as protocol JSON; anything not static (an MLIR value) is the adapter's refusal."""
    if isinstance(v, (cute.Layout, cute.core._Layout)):
        if not cute.is_static(v):
            raise Refusal("cute-dsl-dynamic", "the DSL answered a dynamic layout: " + str(v))
        return {"kind": "layout", "shape": out(v.shape), "stride": out(v.stride)}
    if isinstance(v, tuple):
        return [out(x) for x in v]
    if isinstance(v, bool):
        return v
    if not isinstance(v, int):
        raise Refusal("cute-dsl-dynamic", "not a static integer: %r (%s)" % (v, type(v).__name__))
    return v


# ---- the op table: protocol op -> cutlass.cute ----------------------------------------------------

def strict(a):
    if a.get("domain", "strict") != "strict":
        raise Skip('domain "extend" (D15) has no CuTe DSL counterpart')
    return a


def binary(fn, second="tiler", kind=tiler):
    return lambda a: fn(layout(strict(a)["a"]), kind(a[second]))


def product_tiler(j):
    """A product's tiler: a bare shape (n0,n1,...) is by-mode (A4), the tuple of layouts n_i:1
    (the DSL's product ops take layouts, not a tuple of integers, as their tiler's modes)."""
    t = tiler(j)
    if isinstance(t, tuple):
        return tuple(cute.make_layout(m) if isinstance(m, (int, tuple)) else m for m in t)
    return t


def complement_op(a):
    lay = layout(a["layout"])
    if a.get("cotarget") is None:
        return cute.complement(lay, cute.cosize(lay))  # the protocol's default cotarget
    return cute.complement(lay, inttuple(a["cotarget"]))


def coalesce_op(a):
    lay = layout(a["layout"])
    if a.get("profile") is not None:
        return cute.coalesce(lay, target_profile=inttuple(a["profile"]))
    return cute.coalesce(lay)


def filter_op(a):
    if a.get("profile") is not None:
        raise Skip("cute.filter takes no target profile")
    return cute.filter(layout(a["layout"]))


def crd2idx_op(a):
    shape = inttuple(a["shape"])
    lay = cute.make_layout(shape, stride=inttuple(a["stride"])) if a.get("stride") is not None else cute.make_layout(shape)
    return cute.crd2idx(inttuple(a["coord"]), lay)


def eval_op(a):
    return cute.crd2idx(inttuple(a["coord"]), layout(a["layout"]))


OPS = {
    "flatten": lambda a: cute.flatten(inttuple(a["t"])),
    "product": lambda a: cute.product(inttuple(a["t"])),
    "rank": lambda a: cute.rank(inttuple(a["t"])),
    "depth": lambda a: cute.depth(inttuple(a["t"])),
    "congruent": lambda a: bool(cute.is_congruent(inttuple(a["a"]), inttuple(a["b"]))),
    "shape_div": lambda a: cute.shape_div(inttuple(a["a"]), inttuple(a["b"])),
    "crd2idx": crd2idx_op,
    "idx2crd": lambda a: cute.idx2crd(inttuple(a["index"]), inttuple(a["shape"])),
    "shape": lambda a: cute.shape(layout(a["layout"])),
    "size": lambda a: cute.size(layout(a["layout"])),
    "cosize": lambda a: cute.cosize(layout(a["layout"])),
    "eval": eval_op,
    "coalesce": coalesce_op,
    "filter": filter_op,
    "complement": complement_op,
    "right_inverse": lambda a: cute.right_inverse(layout(a["layout"])),
    "left_inverse": lambda a: cute.left_inverse(layout(a["layout"])),
    "composition": binary(cute.composition),
    "logical_divide": binary(cute.logical_divide),
    "zipped_divide": binary(cute.zipped_divide),
    "tiled_divide": binary(cute.tiled_divide),
    "flat_divide": binary(cute.flat_divide),
    "logical_product": binary(cute.logical_product, kind=product_tiler),
    "zipped_product": binary(cute.zipped_product, kind=product_tiler),
    "tiled_product": binary(cute.tiled_product, kind=product_tiler),
    "flat_product": binary(cute.flat_product, kind=product_tiler),
    "blocked_product": binary(cute.blocked_product, "b", layout),
    "raked_product": binary(cute.raked_product, "b", layout),
    "max_common_vector": lambda a: cute.max_common_vector(layout(a["a"]), layout(a["b"])),
}


def answer(op, args):
    """One request's reply body: {"result"}, {"error"} or {"skipped"}."""
    if op not in OPS:
        return {"skipped": {"reason": "no CuTe DSL counterpart: " + str(op)}}
    try:
        return {"result": out(OPS[op](args))}
    except Skip as e:
        return {"skipped": {"reason": str(e)}}
    except Refusal as e:
        return {"error": {"rule": e.rule, "message": str(e)}}
    except KeyError as e:
        return {"error": {"rule": "protocol-missing-arg", "message": "missing argument " + str(e)}}
    except Exception as e:  # the DSL's own refusal: its verifier or its Python-side checks
        first = str(e).strip().splitlines()
        return {"error": {"rule": "cute-dsl-" + type(e).__name__, "message": " ".join(first[:3])[:400]}}


# ---- the protocol loop ------------------------------------------------------------------------------

def serve(inp, outp, name=None):
    """Answers requests line by line until `stop` or the end of input."""
    name = name or "CuTe DSL (cutlass.cute, nvidia-cutlass-dsl %s)" % dsl_version()
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
            reply = {"cmd": "start", "protocol": 1, "implementation": {"name": name, "version": "adapter 1"},
                     "ops": sorted(OPS)}
        elif req.get("cmd") == "stop":
            print(json.dumps({"cmd": "stop"}), file=outp, flush=True)
            return
        else:
            reply = {"seq": req.get("seq"), **answer(req.get("op"), req.get("args", {}))}
        print(json.dumps(reply), file=outp, flush=True)


def dsl_version():
    try:
        from importlib.metadata import version
        return version("nvidia-cutlass-dsl")
    except Exception:  # a source build without package metadata
        return "unknown"


class Done(Exception):
    """Raised out of the traced function once the loop ends: nothing is left to compile."""


def traced(body):
    """Runs body() inside a traced `@cute.jit` function (where static layouts exist), then leaves
    the function before the DSL compiles it (the trace is only a scratch context)."""
    @cute.jit
    def scratch():
        body()
        raise Done()
    try:
        scratch()
    except Exception as e:  # the DSL may wrap Done in its own error type
        if not isinstance(e, Done) and "Done" not in repr(e) + repr(e.__cause__) + repr(e.__context__):
            raise


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    os.environ.setdefault("CUTE_DSL_LOG_LEVEL", "0")
    traced(lambda: serve(sys.stdin, sys.stdout))
