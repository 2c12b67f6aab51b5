#!/usr/bin/env python3
"""The CuTe DSL's own answers to seeded random layout-algebra requests (issue 45): the differential
peer of tfspec's reference, as frontends/triton/tests/fixtures/encoding_cases.py is for Triton's
encodings. Draws static layouts and ops (composition, complement, coalesce, filter, the inverses,
the divides and products, size, cosize), asks the DSL through conformance/adapters/
cute_dsl_adapter.py (a subprocess, restarted after a crash: the DSL dies with SIGFPE on some
inputs), and writes cute_dsl_algebra.json: per case the protocol request and the DSL's reply
(`result`, `error` or `crash`). The C++ test cute_dsl_algebra_tests (CuteDslDifferential) asks
the reference the same requests and compares; CI needs no DSL. `--check` asks the installed DSL
again and exits 1 naming each case whose answer differs (ctest conform_cute_dsl runs it).

    VENV/bin/python conformance/tests/cute_dsl_cases.py [--check] [--seed N] [--cases N]
"""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.join(HERE, "..", "adapters", "cute_dsl_adapter.py")
FIXTURE = os.path.join(HERE, "cute_dsl_algebra.json")
SEED, CASES = 20261204, 800
EXTENTS = [1, 2, 2, 3, 4, 4, 6, 8]


def text(shape, stride):
    f = lambda t: "(" + ",".join(f(x) for x in t) + ")" if isinstance(t, tuple) else str(t)
    return f(shape) + ":" + f(stride)


def leaves(t):
    return [x for v in t for x in leaves(v)] if isinstance(t, tuple) else [t]


def nest(rng, flat):
    """Groups a flat list into modes, now and then a nested pair."""
    out, i = [], 0
    while i < len(flat):
        if i + 1 < len(flat) and rng.random() < 0.25:
            out.append((flat[i], flat[i + 1]))
            i += 2
        else:
            out.append(flat[i])
            i += 1
    return tuple(out)


def refold(t, flat):
    """The IntTuple of t's profile holding the values of flat, in order."""
    it = iter(flat)
    f = lambda x: tuple(f(v) for v in x) if isinstance(x, tuple) else next(it)
    return f(t)


def random_layout(rng, max_leaves=4):
    """A static layout: half the time compact in a random mode order (injective), else random strides."""
    n = rng.randint(1, max_leaves)
    shape = [rng.choice(EXTENTS) for _ in range(n)]
    if rng.random() < 0.5:
        order, stride, acc = rng.sample(range(n), n), [0] * n, rng.choice([1, 1, 2])
        for k in order:
            stride[k], acc = acc, acc * shape[k]
    else:
        stride = [rng.choice([0, 1, 2, 3, 4, 6, 8, 16]) for _ in range(n)]
    s = nest(rng, shape)
    return text(s, refold(s, stride))


def size(lay):
    shape = lay.split(":")[0].replace("(", " ").replace(")", " ").replace(",", " ").split()
    n = 1
    for x in shape:
        n *= int(x)
    return n


def dividing_layout(rng, n):
    """A layout whose size divides n, often compact (B of a composition or a tiler)."""
    divs = [d for d in range(1, n + 1) if n % d == 0]
    d = rng.choice(divs)
    if rng.random() < 0.5 or d == 1:
        return "%d:%d" % (d, rng.choice([1, 1, 2]))
    a = rng.choice([x for x in divs if d % x == 0])
    return "(%d,%d):(%d,%d)" % (a, d // a, rng.choice([1, d // a]), rng.choice([1, a]))


def random_case(rng):
    a = random_layout(rng)
    op = rng.choice(["composition", "composition", "composition", "complement", "coalesce", "filter", "right_inverse",
                     "left_inverse", "logical_divide", "logical_divide", "zipped_divide", "logical_product",
                     "blocked_product", "raked_product", "size", "cosize"])
    if op == "composition" or op.endswith("divide"):
        b = dividing_layout(rng, size(a)) if rng.random() < 0.7 else random_layout(rng, 2)
        return {"op": op, "args": {"a": a, "tiler": b}}
    if op == "logical_product":
        return {"op": op, "args": {"a": a, "tiler": random_layout(rng, 2)}}
    if op in ("blocked_product", "raked_product"):
        return {"op": op, "args": {"a": a, "b": random_layout(rng, 2)}}
    if op == "complement":
        cot = size(a) * rng.choice([1, 2, 4, 8])
        return {"op": op, "args": {"layout": a, "cotarget": cot}}
    return {"op": op, "args": {"layout": a}}


class Peer:
    """The adapter as a subprocess; a crash ends it and the next request starts a new one."""

    def __init__(self):
        self.proc = None

    def ask(self, req):
        if self.proc is None:
            self.proc = subprocess.Popen([sys.executable, ADAPTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True)
            self.proc.stdin.write('{"cmd":"start","protocol":1}\n')
            self.proc.stdin.flush()
            self.proc.stdout.readline()
        self.proc.stdin.write(json.dumps({"seq": 1, **req}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            self.proc = None
            return {"crash": "signal %d" % -rc if rc < 0 else "exit %d" % rc}
        reply = json.loads(line)
        reply.pop("seq", None)
        if "error" in reply:  # the DSL's message may change between versions; its refusal is the fact
            reply["error"] = {"rule": reply["error"]["rule"]}
        return reply

    def close(self):
        if self.proc is not None:
            self.proc.stdin.write('{"cmd":"stop"}\n')
            self.proc.stdin.close()
            self.proc.wait()


def dsl_version():
    from importlib.metadata import version
    return version("nvidia-cutlass-dsl")


def compute(seed, n):
    rng, peer, cases, seen = random.Random(seed), Peer(), [], set()
    while len(cases) < n:
        req = random_case(rng)
        key = json.dumps(req, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        cases.append({**req, "dsl": peer.ask(req)})
    peer.close()
    return {"dsl": "nvidia-cutlass-dsl " + dsl_version(), "seed": seed, "cases": cases}


def dump(data):
    body = ",\n".join(json.dumps(c, separators=(",", ":")) for c in data["cases"])
    return '{"dsl":%s,"seed":%d,"cases":[\n%s\n]}\n' % (json.dumps(data["dsl"]), data["seed"], body)


def main(argv):
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED
    n = int(argv[argv.index("--cases") + 1]) if "--cases" in argv else CASES
    if "--check" in argv:
        old = json.load(open(FIXTURE))
        new = compute(old["seed"], len(old["cases"]))
        bad = [i for i, (a, b) in enumerate(zip(old["cases"], new["cases"])) if a != b]
        for i in bad[:20]:
            print("cute_dsl_cases: case %d %s: recorded %s, the DSL now %s" % (
                i, json.dumps(old["cases"][i]["args"]), json.dumps(old["cases"][i]["dsl"]), json.dumps(new["cases"][i]["dsl"])))
        print("cute_dsl_cases: %d of %d cases as recorded (%s; recorded with %s)" % (
            len(old["cases"]) - len(bad), len(old["cases"]), new["dsl"], old["dsl"]))
        return 1 if bad else 0
    with open(FIXTURE, "w") as f:
        f.write(dump(compute(seed, n)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
