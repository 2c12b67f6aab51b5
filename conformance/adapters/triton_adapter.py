#!/usr/bin/env python3
"""A conformance adapter over Triton's own LinearLayout (triton._C.libtriton.linear_layout, the C++
class Triton compiles with, through its Python binding): the protocol of spec/PROTOCOL.md on
stdin/stdout for the linear-layout ops of extension X2 (spec/ALGEBRA.md). Run it against the corpus:

    tfspec conform --impl "python3 conformance/adapters/triton_adapter.py" --tag linear

Nothing of tfspec computes an answer: arguments are read by this file's own small parser (the
one-line notation, Triton's printout, or the JSON form) into `LinearLayout.from_bases`, and every
answer is Triton's method of the op's meaning (compose, invert, pseudoinvert, *, apply,
is_injective, ...). The flattening of spec/ALGEBRA.md X2 (first in-dim least significant, first
out-dim fastest) is done here around Triton's named `apply`.

Triton checks its preconditions with C++ assertions and `llvm::report_fatal_error`, which end the
process. Each request therefore runs in a forked child: a child that dies answers an `error` with
the rule `triton-abort` and Triton's last stderr line as the message (not a spec rule id, so a
refusal where the spec also refuses still fails as "refuses with another rule", as for pycute).
Ops Triton's binding lacks (reshape/transpose, conversions to and from CuTe, banks) and inputs it
cannot hold (CuTe layouts) are `skipped`.
"""
import json
import os
import re
import sys

try:
    import tfspec.adapter  # noqa: F401  (installed, or on PYTHONPATH)
except ImportError:  # run from the repository: the base is in python/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from tfspec.adapter import Adapter  # noqa: E402

try:
    from triton._C.libtriton import linear_layout as _ll
    LL = _ll.LinearLayout
except Exception as e:  # noqa: BLE001 - any import failure means "no Triton here"
    LL = None
    IMPORT_ERROR = repr(e)


class Skip(Exception):
    """Answer `skipped` with this reason."""


class Refusal(Exception):
    """This adapter cannot read the argument (its own codec, not Triton): an error with this rule."""

    def __init__(self, rule, message):
        super().__init__(message)
        self.rule = rule


# ---- the argument codec ------------------------------------------------------------------------

def _vector(text):
    text = text.strip()
    if text.startswith("("):
        inner = text[1:-1].strip()
        return [int(x) for x in inner.split(",")] if inner else []
    return [int(text)]


def parse_text(s):
    """(bases, out_dims) of the one-line notation or Triton's printout; Skip for anything else."""
    t = s.strip()
    m = re.fullmatch(r"linear\s*\[(.*)->(.*)\]", t, re.S)
    if m:
        bases = []
        for name, body in re.findall(r"([A-Za-z0-9_.]+)\s*=\s*\[([^\]]*)\]", m.group(1)):
            vecs = re.findall(r"\([^)]*\)|-?\d+", body)
            bases.append((name, [_vector(v) for v in vecs]))
        outs = [(n, int(v)) for n, v in re.findall(r"([A-Za-z0-9_.]+)\s*=\s*(\d+)", m.group(2))]
        return bases, outs
    if t.startswith("-") and "where out dims are" in t:
        body, tail = t.split("where out dims are", 1)
        bases = []
        for line in body.splitlines():
            line = line.strip()
            if not line:
                continue
            if line.startswith("-"):
                line = line[1:].strip()
                m1 = re.fullmatch(r"([A-Za-z0-9_.]+) is a size 1 dimension", line)
                if m1:
                    bases.append((m1.group(1), []))
                    continue
                bases.append((line.split("=")[0].strip(), []))
            bm = re.fullmatch(r"([A-Za-z0-9_.]+)=(\d+) -> (.*)", line)
            if not bm:
                raise Skip("a printout line this adapter does not read: " + line)
            bases[-1][1].append(_vector(bm.group(3)))
        outs = [(n, int(v)) for n, v in re.findall(r"([A-Za-z0-9_.]+) \(size (\d+)\)", tail)]
        return bases, outs
    raise Skip("not a linear layout (Triton holds linear layouts only): " + t[:60])


def parse(arg):
    if isinstance(arg, dict):
        if arg.get("kind") != "linear":
            raise Skip("not a linear layout (Triton holds linear layouts only)")
        bases, outs = arg.get("bases"), arg.get("out_dims")
        if not isinstance(bases, list) or not isinstance(outs, list) or not all(isinstance(b, list) and len(b) == 2 for b in bases + outs):
            raise Refusal("json-type", "bases and out_dims are arrays of [name, value] pairs")
        return [(b[0], b[1]) for b in bases], [(o[0], o[1]) for o in outs]
    if isinstance(arg, str):
        return parse_text(arg)
    raise Skip("a layout argument that is neither JSON nor text")


def build(arg):
    bases, outs = parse(arg)
    return LL.from_bases(bases, [n for n, _ in outs], [s for _, s in outs], False)


def to_json(ll):
    return {"kind": "linear", "bases": [[n, [list(v) for v in vs]] for n, vs in ll.bases],
            "out_dims": [[n, s] for n, s in ll.out_dims]}


def in_sizes(ll):
    return [(n, 1 << len(vs)) for n, vs in ll.bases]


def apply_flat(ll, index):
    """Triton's apply of the flat index, flattened (spec/ALGEBRA.md X2)."""
    ins = {}
    for name, size in in_sizes(ll):
        ins[name] = index % size
        index //= size
    out = ll.apply(ins)
    value, scale = 0, 1
    for name, size in ll.out_dims:
        value += out[name] * scale
        scale *= size
    return value


def size_of(ll):
    n = 1
    for _, s in in_sizes(ll):
        n *= s
    return n


MAX_ENUM = 1 << 16


def enumerate_values(ll, what):
    n = size_of(ll)
    if n > MAX_ENUM:
        raise Skip(what + " enumerates Triton's apply; more than 2^16 points")
    return [apply_flat(ll, i) for i in range(n)]


def eval_op(a):
    ll = build(a["layout"])
    c = a["coord"]
    if isinstance(c, list):
        index, scale = 0, 1
        for (name, size), x in zip(in_sizes(ll), c):
            index += x * scale
            scale *= size
        c = index
    return apply_flat(ll, int(c))


def equivalent_op(a):
    if a.get("inverse"):
        raise Skip("--inverse: Triton compares layouts with ==")
    x, y = build(a["a"]), build(a["b"])
    if x == y:
        return {"equivalent": True}
    vx, vy = enumerate_values(x, "a counterexample"), enumerate_values(y, "a counterexample")
    if len(vx) != len(vy):
        return {"equivalent": False}
    for i, (p, q) in enumerate(zip(vx, vy)):
        if p != q:
            return {"equivalent": False, "counterexample": {"index": i, "a": p, "b": q}}
    return {"equivalent": True}


def shape_op(a):
    sizes = [s for _, s in in_sizes(build(a["layout"]))]
    return sizes[0] if len(sizes) == 1 else (1 if not sizes else sizes)


OPS = {
    "parse": lambda a: to_json(build(a["layout"])),
    "eval": eval_op,
    "size": lambda a: size_of(build(a["layout"])),
    "shape": shape_op,
    "cosize": lambda a: max(enumerate_values(build(a["layout"]), "cosize")) + 1,
    "injective": lambda a: {"injective": build(a["layout"]).is_injective()},
    "surjective": lambda a: build(a["layout"]).is_surjective(),
    "invertible": lambda a: build(a["layout"]).is_invertible(),
    "compose": lambda a: to_json(build(a["inner"]).compose(build(a["outer"]))),
    "invert": lambda a: to_json(build(a["layout"]).invert()),
    "pseudo_invert": lambda a: to_json(build(a["layout"]).pseudoinvert()),
    "linear_product": lambda a: to_json(build(a["inner"]) * build(a["outer"])),
    "equivalent": equivalent_op,
}


def answer_in_process(op, args):
    try:
        return {"result": OPS[op](args)}
    except Skip as e:
        return {"skipped": {"reason": str(e)}}
    except Refusal as e:
        return {"error": {"rule": e.rule, "message": str(e)}}
    except KeyError as e:
        return {"error": {"rule": "protocol-missing-arg", "message": "missing argument " + str(e)}}
    except (ValueError, TypeError, IndexError, RuntimeError) as e:
        return {"error": {"rule": "triton-" + type(e).__name__, "message": repr(e)}}


def answer(op, args):
    """One request's reply body, computed in a forked child so that Triton's aborts are answers."""
    if LL is None:
        return {"skipped": {"reason": "triton is not importable: " + IMPORT_ERROR}}
    if op not in OPS:
        return {"skipped": {"reason": "no counterpart in Triton's LinearLayout binding: " + str(op)}}
    rd, wr = os.pipe()
    erd, ewr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        os.close(erd)
        os.dup2(ewr, 2)
        reply = answer_in_process(op, args)
        os.write(wr, json.dumps(reply).encode())
        os._exit(0)
    os.close(wr)
    os.close(ewr)
    with os.fdopen(rd, "rb") as f:
        data = f.read()
    with os.fdopen(erd, "rb") as f:
        err = f.read().decode(errors="replace").strip()
    _, status = os.waitpid(pid, 0)
    if status == 0 and data:
        return json.loads(data)
    last = err.splitlines()[-1] if err else "no message"
    return {"error": {"rule": "triton-abort", "message": "Triton ended the process: " + last}}


# ---- the protocol loop: tfspec.adapter's, every op answered through `answer` ----------------------

class TritonAdapter(Adapter):
    """tfspec.adapter's handshake and loop; each op request goes to `answer` (a forked child)."""

    def reply(self, req):
        if "cmd" in req or not isinstance(req.get("op"), str):
            return super().reply(req)
        return {"seq": req.get("seq"), **answer(req["op"], req.get("args", {}))}


if __name__ == "__main__":
    adapter = TritonAdapter("triton LinearLayout", "adapter 1")
    adapter.ops = {name: (fn, True) for name, fn in OPS.items()}
    adapter.serve()
