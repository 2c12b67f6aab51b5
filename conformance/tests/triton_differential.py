#!/usr/bin/env python3
"""Differential test of tfspec's linear layouts (extension X2, issue 32) against Triton's own
LinearLayout (triton._C.libtriton.linear_layout): random layouts, seeded and reproducible, each op
answered by `tfspec serve` and by Triton in this process, compared exactly.

    python3 conformance/tests/triton_differential.py build/cli/tfspec [--seed 1] [--cases 300]

Triton checks preconditions with assertions that end the process, so only inputs inside every
op's preconditions reach it (the refusals are the corpus's business: conform_triton). Exit 0 when
every answer agrees, 1 with the first disagreements printed, 77 (ctest: skipped) when Triton is not
importable. The pseudo-inverse is not unique where a layout is not injective: both answers must be
right inverses (L(B(y)) == y), and the report counts how often the two choices coincide.
"""
import argparse
import json
import os
import random
import subprocess
import sys

try:
    from triton._C.libtriton import linear_layout as _ll
    LL = _ll.LinearLayout
except Exception as e:  # noqa: BLE001
    print("SKIPPED: triton_differential: triton is not importable (%r); `python3 -m pip install triton` installs it" % (e,))
    sys.exit(77)


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adapters"))
from triton_adapter import apply_flat as flat_apply, size_of, to_json  # noqa: E402  (Triton's side, read the same way)


class Serve:
    """tfspec serve as a subprocess: one JSON request per line."""

    def __init__(self, tfspec):
        self.p = subprocess.Popen([tfspec, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.seq = 0

    def __call__(self, op, **args):
        self.seq += 1
        self.p.stdin.write(json.dumps({"seq": self.seq, "op": op, "args": args}) + "\n")
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        if "result" not in reply:
            raise AssertionError("tfspec %s %s answered %s" % (op, json.dumps(args), json.dumps(reply)))
        return reply["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def random_layout(rng, ins, outs, max_bits=3, sparse=False, exact_bits=None):
    """from_bases over the given in-dim names and (name, size) out-dims, bases in range."""
    bases = []
    for k, name in enumerate(ins):
        n = exact_bits[k] if exact_bits else rng.randint(0, max_bits)
        bases.append((name, [[0 if sparse and rng.random() < 0.3 else rng.randrange(s) for _, s in outs] for _ in range(n)]))
    return LL.from_bases(bases, [n for n, _ in outs], [s for _, s in outs], False)


def random_outs(rng, names, max_bits=3):
    return [(n, 1 << rng.randint(0, max_bits)) for n in names]


def check(seed, cases, tfspec):
    rng = random.Random(seed)
    serve = Serve(tfspec)
    failures = []
    counts = {"eval": 0, "injective": 0, "compose": 0, "invert": 0, "pseudo_invert": 0, "pseudo_same": 0, "product": 0, "equivalent": 0, "cosize": 0}

    def expect(what, got, want, ctx):
        if got != want:
            failures.append("%s: tfspec %s, Triton %s; %s" % (what, json.dumps(got), json.dumps(want), ctx))

    for _ in range(cases):
        in_names = rng.sample(["register", "lane", "warp", "block"], rng.randint(1, 3))
        outs = random_outs(rng, rng.sample(["dim0", "dim1", "dim2"], rng.randint(1, 2)))
        ll = random_layout(rng, in_names, outs, sparse=rng.random() < 0.5)
        j = to_json(ll)
        ctx = json.dumps(j)
        # eval at every index, the predicates, cosize
        values = [flat_apply(ll, i) for i in range(size_of(ll))]
        for i, v in enumerate(values):
            expect("eval(%d)" % i, serve("eval", layout=j, coord=i), v, ctx)
        counts["eval"] += len(values)
        expect("injective", serve("injective", layout=j)["injective"], ll.is_injective(), ctx)
        expect("surjective", serve("surjective", layout=j), ll.is_surjective(), ctx)
        expect("invertible", serve("invertible", layout=j), ll.is_invertible(), ctx)
        expect("cosize", serve("cosize", layout=j), max(values) + 1, ctx)
        counts["injective"] += 1
        counts["cosize"] += 1
        # invert / pseudo-invert where Triton's preconditions hold
        if ll.is_invertible():
            expect("invert", serve("invert", layout=j), to_json(ll.invert()), ctx)
            counts["invert"] += 1
        if ll.is_surjective():
            mine = serve("pseudo_invert", layout=j)
            theirs = to_json(ll.pseudoinvert())
            counts["pseudo_invert"] += 1
            counts["pseudo_same"] += mine == theirs
            b = LL.from_bases([(n, vs) for n, vs in mine["bases"]], [n for n, _ in mine["out_dims"]], [s for _, s in mine["out_dims"]], False)
            for name, inv in (("tfspec", b), ("Triton", ll.pseudoinvert())):
                bad = [y for y in range(size_of(inv)) if flat_apply(ll, flat_apply(inv, y)) != y]
                if bad:
                    failures.append("pseudo_invert: %s's answer is not a right inverse at %d; %s" % (name, bad[0], ctx))
        # compose with an outer whose in-dims are this layout's out-dims (shuffled, each as large or larger)
        outer_ins = [n for n, _ in outs]
        rng.shuffle(outer_ins)
        size = dict(outs)
        bits = [(size[n].bit_length() - 1) + rng.randint(0, 1) for n in outer_ins]
        outer = random_layout(rng, outer_ins, random_outs(rng, ["o0", "o1"][: rng.randint(1, 2)]), exact_bits=bits)
        expect("compose", serve("compose", inner=j, outer=to_json(outer)), to_json(ll.compose(outer)), ctx + " with " + json.dumps(to_json(outer)))
        counts["compose"] += 1
        # product with a layout over dims in a consistent order (a sub-sequence of the same lists)
        order = ["register", "lane", "warp", "block"]
        inner_ins = sorted(in_names, key=order.index)
        other_ins = sorted(rng.sample(order, rng.randint(1, 2)), key=order.index)
        out_order = ["dim0", "dim1", "dim2"]
        a = random_layout(rng, inner_ins, sorted(outs, key=lambda o: out_order.index(o[0])))
        b = random_layout(rng, other_ins, sorted(random_outs(rng, rng.sample(out_order, rng.randint(1, 2))), key=lambda o: out_order.index(o[0])))
        expect("linear_product", serve("linear_product", inner=to_json(a), outer=to_json(b)), to_json(a * b), json.dumps(to_json(a)) + " * " + json.dumps(to_json(b)))
        counts["product"] += 1
        # equivalence: the layout against a copy with one basis entry changed (or not)
        bases = [(n, [list(v) for v in vs]) for n, vs in ll.bases]
        flat = [(k, i) for k, (_, vs) in enumerate(bases) for i in range(len(vs))]
        if flat and rng.random() < 0.7:
            k, i = rng.choice(flat)
            d = rng.randrange(len(outs))
            bases[k][1][i][d] = rng.randrange(outs[d][1])
        other = LL.from_bases(bases, [n for n, _ in outs], [s for _, s in outs], False)
        expect("equivalent", serve("equivalent", a=j, b=to_json(other))["equivalent"], ll == other, ctx)
        counts["equivalent"] += 1
        if len(failures) > 20:
            break
    serve.close()
    return failures, counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfspec")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=300)
    a = ap.parse_args()
    failures, counts = check(a.seed, a.cases, a.tfspec)
    print("triton_differential seed %d, %d layouts: %s" % (a.seed, a.cases, ", ".join("%s %d" % kv for kv in counts.items())))
    for f in failures[:20]:
        print("DISAGREE " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
