#!/usr/bin/env python3
"""Generates the brute-force part of the conformance corpus (spec/corpus/gen-*.json).

Every expected value is evaluated from the definition, point by point, in this file: an index is
decomposed colexicographically (D1), a layout is the sum of coordinate times stride (§3), a
composition is judged pointwise as A(B(i)) (§3, D17) and answered when those values are a layout
over a refinement of B's shape, a physical element follows D3, regroup follows D2. Nothing here
calls tfspec. Standard library only; the output depends on the seed alone:

    python3 conformance/gen/gen_corpus.py --seed 1 --out spec/corpus
"""
import argparse
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from notation import layout_text, text  # noqa: E402

COMPOSITION_REFUSALS = ["composition-stride-divisibility", "composition-shape-divisibility", "composition-mode-overlap"]


# ---- IntTuple and layout definitions (§1, §3, D1) ------------------------------------------------

def flat(t):
    return [x for v in t for x in flat(v)] if isinstance(t, list) else [t]


def size(t):
    n = 1
    for x in flat(t):
        n *= x
    return n


def idx2crd(i, shape):
    """D1: colexicographic, following the nesting."""
    if not isinstance(shape, list):
        return i
    out = []
    for s in shape:
        out.append(idx2crd(i % size(s), s))
        i //= size(s)
    return out


def dot(coord, stride):
    return sum(c * d for c, d in zip(flat(coord), flat(stride)))


def evaluate(shape, stride, i):
    return dot(idx2crd(i, shape), stride)


def values(shape, stride):
    return [evaluate(shape, stride, i) for i in range(size(shape))]


def layout_json(shape, stride):
    return {"kind": "layout", "shape": shape, "stride": stride}


# ---- random objects -------------------------------------------------------------------------------

def rand_shape(rng, max_rank=3, max_extent=6, nest=True, max_size=512):
    while True:
        rank = rng.randint(1, max_rank)
        shape = []
        for _ in range(rank):
            if nest and rng.random() < 0.25:
                shape.append([rng.randint(1, max_extent) for _ in range(rng.randint(1, 2))])
            else:
                shape.append(rng.randint(1, max_extent))
        if size(shape) <= max_size:
            return shape


def like(shape, leaf):
    return [like(s, leaf) for s in shape] if isinstance(shape, list) else leaf()


def rand_layout(rng, lo=0, hi=12, **kw):
    shape = rand_shape(rng, **kw)
    return shape, like(shape, lambda: rng.randint(lo, hi))


def compact_stride(shape):
    p = [1]

    def go(s):
        if isinstance(s, list):
            return [go(x) for x in s]
        v = p[0]
        p[0] *= s
        return v
    return go(shape)


def case(cid, clause, op, args, note, source, expect=None, error=None, **extra):
    c = {"id": cid, "clause": clause, "op": op, "args": args}
    if error is not None:
        c["expect_error"] = error
    else:
        c["expect"] = expect
    c.update(extra)
    c["note"] = note
    c["source"] = source
    return c


# ---- §1 -----------------------------------------------------------------------------------------

def shape_div(a, b):
    """pycute's shape_div; None when refused (neither divides the other)."""
    if isinstance(a, list):
        out = []
        for v in a:
            r = shape_div(v, b)
            if r is None:
                return None
            out.append(r)
            b = shape_div(b, size(v))
            if b is None:
                return None
        return out
    if a % b == 0:
        return a // b
    if b % a == 0:
        return 1
    return None


def prefix_product(t, init=1):
    if isinstance(t, list):
        out = []
        for v in t:
            out.append(prefix_product(v, init))
            init *= size(v)
        return out
    return init


def depth(t):
    return 1 + max((depth(v) for v in t), default=0) if isinstance(t, list) else 0


def congruent(a, b):
    if isinstance(a, list) != isinstance(b, list):
        return False
    return not isinstance(a, list) or (len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b)))


def compatible(a, b):
    """pycute: a is compatible with b when b refines a (each leaf of a is the size of b's subtree)."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(compatible(x, y) for x, y in zip(a, b))
    return a == size(b)


def coarsen(rng, t):
    if isinstance(t, list) and rng.random() < 0.3:
        return size(t)
    return [coarsen(rng, v) for v in t] if isinstance(t, list) else t


def gen_s1(rng):
    cases = []
    for n in range(60):
        b = rand_shape(rng, max_rank=3, max_extent=5)
        a = coarsen(rng, b) if n % 2 == 0 else rand_shape(rng, max_rank=3, max_extent=5)
        cases.append(case(f"g-s1-compatible-{n:04d}", "§1", "compatible", {"a": a, "b": b},
                          "pycute: each leaf of a is the size of the matching subtree of b", "brute-force", expect=compatible(a, b)))
        c = like(b, lambda: rng.randint(0, 9)) if n % 2 == 0 else rand_shape(rng, max_rank=3, max_extent=5)
        cases.append(case(f"g-s1-congruent-{n:04d}", "§1", "congruent", {"a": b, "b": c}, "same tree structure", "brute-force",
                          expect=congruent(b, c)))
    for n in range(150):
        shape = rand_shape(rng, max_rank=4)
        i = rng.randrange(size(shape))
        cases.append(case(f"g-s1-idx2crd-{n:04d}", "§1", "idx2crd", {"index": i, "shape": shape},
                          "D1: colexicographic decomposition, following the nesting", "brute-force",
                          expect=idx2crd(i, shape), compare="exact", decisions=["D1"]))
    for n in range(200):
        shape, stride = rand_layout(rng, lo=-4, hi=20, max_rank=4)
        i = rng.randrange(size(shape))
        coord = idx2crd(i, shape) if n % 2 == 0 else i
        args = {"coord": coord, "shape": shape, "stride": stride}
        cases.append(case(f"g-s1-crd2idx-{n:04d}", "§1", "crd2idx", args, "sum of coordinate times stride (an int coordinate decomposed by D1)",
                          "brute-force", expect=dot(idx2crd(i, shape), stride)))
    for n in range(100):
        a = rand_shape(rng, max_rank=3, max_extent=8)
        b = rng.choice([1, 2, 3, 4, 6, 8, 12, 16])
        r = shape_div(a, b)
        args = {"a": a, "b": b}
        if r is None:
            cases.append(case(f"g-s1-shape-div-{n:04d}", "§1", "shape_div", args, "pycute: neither divides the other at some step", "brute-force",
                              error="shape-div-divisibility"))
        else:
            cases.append(case(f"g-s1-shape-div-{n:04d}", "§1", "shape_div", args, "pycute shape_div, carried mode by mode", "brute-force", expect=r))
    for n in range(50):
        t = rand_shape(rng, max_rank=4, max_extent=9)
        cases.append(case(f"g-s1-prefix-product-{n:04d}", "§1", "prefix_product", {"t": t}, "products of the extents before each", "brute-force",
                          expect=prefix_product(t), compare="exact"))
        cases.append(case(f"g-s1-product-{n:04d}", "§1", "product", {"t": t}, "product of the leaves", "brute-force", expect=size(t)))
        cases.append(case(f"g-s1-flatten-{n:04d}", "§1", "flatten", {"t": t}, "the leaves in order", "brute-force",
                          expect=flat(t), compare="exact"))
        cases.append(case(f"g-s1-depth-{n:04d}", "§1", "depth", {"t": t}, "nesting depth", "brute-force", expect=depth(t)))
        cases.append(case(f"g-s1-rank-{n:04d}", "§1", "rank", {"t": t}, "number of top-level modes", "brute-force", expect=len(t)))
    return cases


# ---- §2, §3 -------------------------------------------------------------------------------------

def gen_s2(rng):
    cases = []
    for n in range(200):
        shape, stride = rand_layout(rng, lo=-6, hi=12, max_size=256)
        vals = values(shape, stride)
        inj = len(set(vals)) == len(vals)
        cases.append(case(f"g-s2-injective-{n:04d}", "§2", "injective", {"layout": layout_text(shape, stride)},
                          "distinct offsets at all %d points" % len(vals) if inj else "two points share an offset", "brute-force",
                          expect={"injective": inj}))
    return cases


def coalesce_flat(shape, stride):
    """The function of a flat layout with the fewest modes (drops size-1 modes, merges s0:d0, s1:s0*d0)."""
    out = []
    for s, d in zip(flat(shape), flat(stride)):
        if s == 1:
            continue
        if out and out[-1][0] * out[-1][1] == d:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    return out or [(1, 0)]


def gen_s3_layout(rng):
    cases = []
    for n in range(300):
        shape, stride = rand_layout(rng, lo=-3, hi=20, max_rank=4)
        i = rng.randrange(size(shape))
        coord = i if n % 3 else idx2crd(i, shape)
        cases.append(case(f"g-s3-eval-{n:04d}", "§3", "eval", {"layout": layout_text(shape, stride), "coord": coord},
                          "L(i) = crd2idx(idx2crd(i)) (D1)", "brute-force", expect=evaluate(shape, stride, i), decisions=["D1"]))
    for n in range(80):
        shape, stride = rand_layout(rng, lo=0, hi=20, max_rank=4)
        cases.append(case(f"g-s3-size-{n:04d}", "§3", "size", {"layout": layout_text(shape, stride)}, "product of the extents", "brute-force", expect=size(shape)))
        cases.append(case(f"g-s3-cosize-{n:04d}", "§3", "cosize", {"layout": layout_text(shape, stride)}, "1 + the largest offset, enumerated", "brute-force",
                          expect=1 + max(values(shape, stride))))
    for n in range(100):
        shape, stride = rand_layout(rng, lo=0, hi=16, max_rank=4)
        if rng.random() < 0.4:  # make some modes mergeable
            stride = compact_stride(shape)
        cases.append(case(f"g-s3-coalesce-{n:04d}", "§3", "coalesce", {"layout": layout_text(shape, stride)},
                          "coalesce keeps the function: the same offset at every index", "property", expect=layout_json(shape, stride)))
    for n in range(100):
        shape, stride = rand_layout(rng, lo=0, hi=6, max_rank=4)
        kept = [(s, d) for s, d in zip(flat(shape), flat(stride)) if s != 1 and d != 0] or [(1, 0)]
        cases.append(case(f"g-s3-filter-{n:04d}", "§3", "filter", {"layout": layout_text(shape, stride)},
                          "the layout without its stride-0 and size-1 modes", "brute-force",
                          expect=layout_json([s for s, _ in kept], [d for _, d in kept])))
    return cases


def divisors_desc(n):
    return [e for e in range(n, 1, -1) if n % e == 0]


def as_layout(vals, flat_shape):
    """A layout over a refinement of flat_shape whose colexicographic values are vals, or None."""
    n = len(vals)
    if n == 0 or vals[0] != 0:
        return None

    def check(modes):
        shape = [e for e, _ in modes] or [1]
        stride = [d for _, d in modes] or [0]
        return values(shape, stride) == vals

    def rec(j, rem, step, modes):
        if rem == 1:
            if j + 1 == len(flat_shape):
                return modes if check(modes) else None
            return rec(j + 1, flat_shape[j + 1], step, modes)
        for e in divisors_desc(rem):
            d = vals[step]
            if all(vals[k * step] == k * d for k in range(e)):
                r = rec(j, rem // e, step * e, modes + [(e, d)])
                if r is not None:
                    return r
        return None
    return rec(0, flat_shape[0], 1, [])


def extended(shape, stride, i):
    """D15 extend, as CuTe: A continues past its last mode. CuTe composes with coalesce(A), where
    size-1 modes are gone, so the mode that continues is the last one of extent > 1 (none: A is
    the constant 0)."""
    modes = [(s, d) for s, d in zip(flat(shape), flat(stride)) if s != 1]
    off = 0
    for k, (s, d) in enumerate(modes):
        c = i if k == len(modes) - 1 else i % s
        off += c * d
        i //= s
    return off


def gen_s3_composition(rng, count, extend_count):
    cases = []
    n = 0
    answered = refused = outside_cases = 0
    while n < count + extend_count:
        a_shape, a_stride = rand_layout(rng, lo=0, hi=12, max_rank=3, max_size=96)
        b_shape = rand_shape(rng, max_rank=2, max_extent=6, nest=False, max_size=36)
        b_stride = like(b_shape, lambda: rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 6, 8]))
        bvals = values(b_shape, b_stride)
        n_a = size(a_shape)
        outside = sum(1 for v in bvals if v >= n_a)
        is_extend = n >= count
        args = {"a": layout_text(a_shape, a_stride), "tiler": layout_text(b_shape, b_stride)}
        note_fn = "A(B(i)) at each of the %d points of B" % len(bvals)
        if not is_extend:
            if outside and rng.random() < 0.7:
                continue  # keep most strict cases inside A's domain
            if outside:
                cases.append(case(f"g-s3-comp-{n:04d}", "§3", "composition", args,
                                  "D15 strict: %d of B's offsets reach past size(A) = %d" % (outside, n_a), "brute-force",
                                  error="composition-image-in-domain", decisions=["D15"]))
                n += 1
                continue
            f = [evaluate(a_shape, a_stride, v) for v in bvals]
        else:
            if not outside:
                continue  # extend cases are the ones that run past A
            f = [extended(a_shape, a_stride, v) for v in bvals]
        modes = as_layout(f, flat(b_shape))
        opts = {"options": {"domain": "extend"}, "decisions": ["D15", "D17"]} if is_extend else {"decisions": ["D17"]}
        if modes is None:
            refused += 1
            cases.append(case(f"g-s3-comp-{n:04d}", "§3", "composition", args,
                              note_fn + ": the values %s are no layout over a refinement of %s" % (f if len(f) <= 12 else str(f[:12])[:-1] + ", …]", text(b_shape)),
                              "brute-force", error=COMPOSITION_REFUSALS, **opts))
        else:
            answered += 1
            expect = layout_json([e for e, _ in modes] or [1], [d for _, d in modes] or [0])
            if is_extend:
                expect["outside"] = outside
                outside_cases += 1
            cases.append(case(f"g-s3-comp-{n:04d}", "§3", "composition", args, note_fn + " form this layout (D17)", "brute-force",
                              expect=expect, **opts))
        n += 1
    return cases


# ---- §4, §5, §6 ---------------------------------------------------------------------------------

def gen_s4(rng):
    """ComposedLayout: idx = inner(offset + outer(coord)), None an identity part (§4)."""
    cases = []
    for n in range(120):
        o_shape, o_stride = rand_layout(rng, lo=0, hi=5, max_rank=2, max_size=24)
        offset = rng.randint(0, 6)
        reach = offset + max(values(o_shape, o_stride))
        kind = n % 3  # 0: both parts, 1: no inner, 2: no outer
        i_shape, i_stride = rand_layout(rng, lo=0, hi=9, max_rank=3, max_size=256)
        while (kind == 0 and size(i_shape) <= reach) or (kind == 2 and size(i_shape) <= offset):
            i_shape = i_shape + [rng.randint(2, 4)] if isinstance(i_shape, list) else [i_shape, 2]
            i_stride = i_stride + [rng.randint(0, 9)]
        inner = layout_text(i_shape, i_stride) if kind != 1 else "None"
        outer = layout_text(o_shape, o_stride) if kind != 2 else "None"
        text_ = f"{inner} o {offset} o {outer}"
        if kind == 2:
            i = rng.randrange(max(1, size(i_shape) - offset))
            want = evaluate(i_shape, i_stride, offset + i)
            coord = i
        else:
            x = rng.randrange(size(o_shape))
            coord = idx2crd(x, o_shape) if n % 2 else x
            j = offset + evaluate(o_shape, o_stride, x)
            want = j if kind == 1 else evaluate(i_shape, i_stride, j)
        cases.append(case(f"g-s4-eval-{n:04d}", "§4", "eval", {"layout": text_, "coord": coord},
                          "inner(offset + outer(coord)); a None part is the identity", "brute-force", expect=want))
        if kind != 2:
            cases.append(case(f"g-s4-shape-{n:04d}", "§4", "shape", {"layout": text_}, "the outer's shape", "brute-force",
                              expect=o_shape, compare="exact"))
    return cases


def gen_s5(rng):
    """Meshes: topology_domain (D6), row-major layout (D12), constant slices (D7)."""
    cases = []
    for n in range(80):
        ext = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        names = [AXES[k] for k in range(len(ext))]
        dev = size(ext)
        split = rng.choice([d for d in range(1, dev + 1) if dev % d == 0])
        topo = f"cta({split})*thread({dev // split})" if n % 2 else f"device({dev})"
        mesh = topo + "|" + ",".join(f"{a}={e}" for a, e in zip(names, ext))
        strides = compact_stride(list(reversed(ext)))[::-1]  # D12: the last axis fastest
        if n % 2 == 0:
            cases.append(case(f"g-s5-mesh-{n:04d}", "§5", "shard.mesh", {"mesh": mesh}, "D6: product of num_devices; D12: row-major",
                              "brute-force", expect={"topology_domain": dev, "names": names, "layout": {"kind": "layout", "shape": ext, "stride": strides}},
                              decisions=["D6", "D12"]))
            continue
        entries, origin, kept_shape, kept_stride, kept_names = [], 0, [], [], []
        for a, e, d in zip(names, ext, strides):
            r = rng.random()
            if r < 0.4:
                k = rng.randrange(e)
                entries.append(str(k))
                origin += k * d
            elif r < 0.7 or e == 1:
                entries.append("_")
                kept_shape.append(e), kept_stride.append(d), kept_names.append(a)
            else:
                b = rng.randrange(e - 1)
                t = rng.randint(b + 1, e)
                entries.append(f"{b}:{t}")
                origin += b * d
                kept_shape.append(t - b), kept_stride.append(d), kept_names.append(a)
        expect = {"topology_domain": dev, "names": kept_names,
                  "layout": {"kind": "composed", "inner": None, "offset": origin, "outer": {"kind": "layout", "shape": kept_shape, "stride": kept_stride}}}
        cases.append(case(f"g-s5-slice-{n:04d}", "§5", "shard.mesh", {"mesh": mesh, "slice": "(" + ",".join(entries) + ")"},
                          "D7: None o (origin under the row-major strides) o (kept extents : kept strides)", "brute-force",
                          expect=expect, decisions=["D7", "D12"]))
    return cases


def gen_s6(rng):
    """One Split: divisibility is §6's rule, G[k] == extent §7.1.1's (D8)."""
    cases = []
    for n in range(120):
        g = [rng.choice([1, 2, 3, 4, 6, 8, 12]) for _ in range(rng.randint(1, 3))]
        k = rng.randrange(len(g))
        e = rng.choice([1, 2, 3, 4, 6])
        rule = "split-divides" if g[k] % e else ("split-extent-canonical" if g[k] != e else None)
        expect = {"ok": rule is None, "violations": [{"rule": rule}] if rule else []}
        cases.append(case(f"g-s6-split-{n:04d}", "§6", "shard.check", {"layout": f"shard({text(g)}:None; S({k}); x={e})"},
                          "D8: extent %d against G[%d] = %d" % (e, k, g[k]), "brute-force", expect=expect, decisions=["D8"]))
    return cases


# ---- §7, §8 -------------------------------------------------------------------------------------

AXES = "abcdefgh"


def rand_shard(rng, storage, g_fixed=None, max_devices=64, max_size=512):
    """A canonical ShardLayout: G flat, some dims Split by a mesh axis of the same extent, others
    Broadcast; strides in the form the storage allows (per-instance for rmem, shared C order
    otherwise). Returns (G, strides, mesh axes [(name, extent, split dim or None)], topologies)."""
    while True:
        g = list(g_fixed) if g_fixed else [rng.choice([1, 2, 2, 3, 4, 4, 6, 8]) for _ in range(rng.randint(1, 4))]
        axes = []
        for k, e in enumerate(g):
            if e > 1 and rng.random() < 0.5:
                axes.append([None, e, k])
        for _ in range(rng.randint(0, 1)):
            axes.append([None, rng.randint(1, 3), None])
        if not axes:
            continue
        rng.shuffle(axes)
        for i, a in enumerate(axes):
            a[0] = AXES[i]
        devices = size([a[1] for a in axes])
        if devices > max_devices or size(g) > max_size:
            continue
        local = [1 if any(a[2] == k for a in axes) else e for k, e in enumerate(g)]
        if storage == "rmem":  # per-instance form: 0 on Split dims, C order over the local shape
            strides, p = [0] * len(g), 1
            for k in reversed(range(len(g))):
                if local[k] != g[k]:
                    continue
                strides[k], p = p, p * g[k]
        else:  # shared C order over G
            strides, p = [0] * len(g), 1
            for k in reversed(range(len(g))):
                strides[k], p = p, p * g[k]
        if storage == "smem":
            # cta(C)*thread(T) with C*T = devices: C the first axis's extent
            c = axes[0][1]
            topo = f"cta({c})*thread({devices // c})"
        else:
            topo = f"device({devices})"
        return g, strides, axes, topo


def shard_text(g, strides, axes, topo, none_strides=False):
    attrs = ",".join(f"S({a[2]})" if a[2] is not None else "B" for a in axes)
    mesh = topo + "|" + ",".join(f"{a[0]}={a[1]}" for a in axes)
    st = "None" if none_strides else text(strides)
    return f"shard({text(g)}:{st}; {attrs}; {mesh})"


def gen_s7(rng):
    cases = []
    for n in range(100):
        g, strides, axes, topo = rand_shard(rng, "rmem")
        local = [1 if any(a[2] == k for a in axes) else e for k, e in enumerate(g)]
        sl = shard_text(g, strides, axes, topo, none_strides=True)
        cases.append(case(f"g-s7-local-shape-{n:04d}", "§7.1.1", "shard.local-shape", {"layout": sl},
                          "G[k] / extent on Split dims (canonical: 1), G[k] elsewhere", "brute-force", expect=local))
        view = ["S(%d)" % k if any(a[2] == k for a in axes) else "B" for k in range(len(g))]
        cases.append(case(f"g-s7-dim-view-{n:04d}", "§7.5", "shard.dim-view", {"layout": sl},
                          "D10: S(k) on the Split-bound dims, B elsewhere", "brute-force", expect=view, decisions=["D10"]))
    for n in range(240):
        storage = ["rmem", "gmem", "smem"][n % 3]
        g, strides, axes, topo = rand_shard(rng, storage)
        extents = [a[1] for a in axes]
        m = [rng.randrange(e) for e in extents]
        local_shape = [1 if any(a[2] == k for a in axes) else e for k, e in enumerate(g)]
        c = [rng.randrange(e) for e in local_shape]
        coord = list(c)
        for a, mi in zip(axes, m):
            if a[2] is not None:
                coord[a[2]] = mi * local_shape[a[2]] + c[a[2]]
        offset = sum(x * d for x, d in zip(coord, strides))
        device = 0
        for mi, e in zip(m, extents):  # D12: row-major mesh layout
            device = device * e + mi
        if storage == "rmem":
            engine = device
        elif storage == "gmem":
            engine = 0
        else:  # smem: the CTA of the device (topologies outermost first)
            engine = device // (size(extents) // extents[0])
        cases.append(case(f"g-s7-physical-{n:04d}", "§7.1.2", "shard.physical",
                          {"layout": shard_text(g, strides, axes, topo), "storage": storage, "mesh_coord": m, "local": c},
                          "D3: g[k] = m[a] * local[k] + c[k] on Split dims; engine by storage; D12 device order", "brute-force",
                          expect={"engine": engine, "offset": offset}, decisions=["D3", "D12"]))
    return cases


def regroup(t, g):
    """D2: runs of G's dims multiplying to each T dim, left to right; size-1 dims join the current run."""
    runs, cur, prod = [[]], 0, 1
    for k, e in enumerate(g):
        if e == 1:
            runs[cur].append(k)
            continue
        if prod == t[cur]:
            if cur + 1 == len(t):
                return None
            cur, prod = cur + 1, 1
            runs.append([])
        if t[cur] % (prod * e):
            return None
        prod *= e
        runs[cur].append(k)
    if cur != len(t) - 1 or prod != t[cur]:
        return None
    return runs


def factor(rng, n):
    out = []
    for p in [2, 3, 5, 7]:
        while n % p == 0:
            out.append(p)
            n //= p
    if n > 1:
        out.append(n)
    rng.shuffle(out)
    parts, cur = [], 1
    for f in out:
        cur *= f
        if rng.random() < 0.5:
            parts.append(cur)
            cur = 1
    if cur > 1 or not parts:
        parts.append(cur)
    return parts


def gen_s8(rng):
    cases = []
    for n in range(150):
        t = [rng.randint(2, 24) for _ in range(rng.randint(1, 3))]
        g = [f for e in t for f in factor(rng, e)]
        for _ in range(rng.randint(0, 2)):
            g.insert(rng.randrange(len(g) + 1), 1)
        if n % 3 == 2:
            rng.shuffle(g)
        r = regroup(t, g)
        args = {"shape": t, "layout_shape": g}
        if r is None:
            cases.append(case(f"g-s8-regroup-{n:04d}", "§8", "shard.regroup", args, "D2: no row-major refinement of the logical shape",
                              "brute-force", error="shard-regroup", decisions=["D2"]))
        else:
            cases.append(case(f"g-s8-regroup-{n:04d}", "§8", "shard.regroup", args, "D2: the runs, size-1 dims in the current run",
                              "brute-force", expect=r, decisions=["D2"]))
    return cases


# ---- §3: complement, divides, products, inverses ---------------------------------------------------

def complement_modes(shape, stride, cotarget):
    """A2, written from CuTe's algorithm: modes sorted by stride (stride-0 and size-1 modes dropped);
    each must start at or above the span of the one below (else complement-disjoint); the gap
    below a mode of stride d takes d // span copies; the last mode ceil(cotarget / span). Returns
    the modes [(extent, stride)] without size-1 modes, or a rule id."""
    if any(d < 0 for d in flat(stride)):  # refused wherever it is, a size-1 mode included
        return "complement-negative-stride"
    modes = sorted((d, s) for s, d in zip(flat(shape), flat(stride)) if s != 1 and d != 0)
    out, cur = [], 1
    for d, s in modes:
        if d < cur:
            return "complement-disjoint"
        out.append((d // cur, cur))
        cur = s * d
    out.append((-(-cotarget // cur), cur))
    return [(e, d) for e, d in out if e != 1] or [(1, 0)]


def injective_values(vals):
    return len(set(vals)) == len(vals)


def mode_layout(modes):
    return [e for e, _ in modes], [d for _, d in modes]


def digit_left_inverse(shape, stride):
    """A8 (issue 44), written from the spec's words: L's moving modes (extent > 1, stride > 0)
    sorted by stride, each with e, its index step (compact stride in L's domain); consecutive
    modes share one digit of R when e / d is one ratio; a digit's base P divides their strides, is
    a multiple of the previous base and above every offset the modes before reach; its stride is
    e * P / d, an integer. Bases tried largest first, blocks shortest first; the last digit reaches
    cosize(L). Returns (shape, stride) or None; negative strides: None."""
    fs, fd = flat(shape), flat(stride)
    modes, e = [], 1
    for s_, d_ in zip(fs, fd):
        if d_ < 0 and s_ > 1:
            return None
        if d_ > 0 and s_ > 1:
            modes.append((d_, s_, e))
        e *= s_
    modes.sort(key=lambda m: m[0])
    cos = max(values(shape, stride)) + 1
    below = [0]
    for d_, s_, _ in modes:
        below.append(below[-1] + (s_ - 1) * d_)

    def rec(k, base, digits):
        if k == len(modes):
            return digits[:-1] + [(-(-cos // base), digits[-1][1])]
        d0, _, e0 = modes[k]
        g = 0
        for end in range(k + 1, len(modes) + 1):
            d1, _, e1 = modes[end - 1]
            if e0 * d1 != e1 * d0:
                break
            g = math.gcd(g, d1)
            for p in [x for x in range(g, 0, -1) if g % x == 0]:
                if p % base or p <= below[k] or (e0 * p) % d0:
                    continue
                r = rec(end, p, digits[:-1] + [(p // base, digits[-1][1]), (1, e0 * p // d0)])
                if r is not None:
                    return r
        return None
    digits = rec(0, 1, [(1, 0)])
    if digits is None:
        return None
    return [r for r, _ in digits], [t for _, t in digits]


def check_complement(shape, stride, modes):
    """The definition, brute force: R starts at 0, is injective, and (filter(A), R) is injective."""
    r_shape, r_stride = mode_layout(modes)
    rv = values(r_shape, r_stride)
    kept = [(s, d) for s, d in zip(flat(shape), flat(stride)) if s != 1 and d != 0] or [(1, 0)]
    f_shape, f_stride = mode_layout(kept)
    assert rv[0] == 0 and injective_values(rv), (shape, stride, modes)
    if injective_values(values(f_shape, f_stride)):
        assert injective_values(values(f_shape + r_shape, f_stride + r_stride)), (shape, stride, modes)


def gen_complement(rng):
    cases = []
    for n in range(150):
        shape, stride = rand_layout(rng, lo=0, hi=24, max_rank=3, max_extent=5, max_size=64)
        if n % 4 == 0:  # compact-ish layouts, often disjoint
            stride = [d * rng.choice([1, 2, 3]) for d in compact_stride(flat(shape))]
            shape = flat(shape)
        if n % 25 == 7:
            stride = flat(stride)
            stride[0] = -stride[0] - 1
            shape = flat(shape)
        co = max(values(shape, stride)) + 1 if n % 3 == 0 else rng.randint(1, 200)
        args = {"layout": layout_text(shape, stride)}
        if n % 3:
            args["cotarget"] = co
        m = complement_modes(shape, stride, co)
        if isinstance(m, str):
            cases.append(case(f"g-s3-complement-{n:04d}", "§3", "complement", args,
                              "A2: " + ("a negative stride" if m.endswith("stride") else "sorted by stride, a mode starts below the span of the one before"),
                              "brute-force", error=m, decisions=["A2"]))
            continue
        check_complement(shape, stride, m)
        cases.append(case(f"g-s3-complement-{n:04d}", "§3", "complement", args,
                          "A2 (CuTe's construction, floor gaps), checked: injective, disjoint from an injective A; cotarget %d" % co,
                          "brute-force", expect=layout_json(*mode_layout(m)), decisions=["A2"]))
    return cases


def compose_values(a_shape, a_stride, t_vals, t_flat):
    """A o T from T's values: (None, rule) when refused under strict, else (modes, None)."""
    n_a = size(a_shape)
    if any(v >= n_a or v < 0 for v in t_vals):
        return None, "composition-image-in-domain"
    modes = as_layout([evaluate(a_shape, a_stride, v) for v in t_vals], t_flat)
    return (modes, None) if modes is not None else (None, COMPOSITION_REFUSALS)


PRODUCT_REFUSALS = ["complement-disjoint", "composition-image-in-domain"] + COMPOSITION_REFUSALS


def gen_divide_product(rng):
    cases = []
    ops_div = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"]
    ops_prod = ["logical_product", "zipped_product", "tiled_product", "flat_product"]
    n = 0
    while n < 240:
        op = (ops_div + ops_prod)[n % 8]
        a_shape, a_stride = rand_layout(rng, lo=0, hi=8, max_rank=2, max_extent=6, max_size=48)
        if rng.random() < 0.5:
            a_stride = compact_stride(a_shape)
        b_shape = rand_shape(rng, max_rank=2, max_extent=4, nest=False, max_size=12)
        b_stride = like(b_shape, lambda: rng.choice([1, 1, 2, 3, 4]))
        args = {"a": layout_text(a_shape, a_stride), "tiler": layout_text(b_shape, b_stride)}
        bvals = values(b_shape, b_stride)
        if op in ops_div:
            # A3: logical_divide(A, B) = A o (B, complement(B, size(A)))
            c = complement_modes(b_shape, b_stride, size(a_shape))
            if isinstance(c, str):
                cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, "A3: complement(B, size(A)) refused (%s)" % c, "brute-force", error=c, decisions=["A3"]))
                n += 1
                continue
            check_complement(b_shape, b_stride, c)
            t_shape = [b_shape, [e for e, _ in c]]
            t_stride = [b_stride, [d for _, d in c]]
            modes, rule = compose_values(a_shape, a_stride, values(t_shape, t_stride), flat(t_shape))
            how = "A3: A o (B, complement(B, size(A)) = %s), A(T(i)) at each point" % layout_text(*mode_layout(c))
        else:
            # A3: logical_product(A, B) = (A, complement(A, size(A) * cosize(B)) o B)
            c = complement_modes(a_shape, a_stride, size(a_shape) * (max(bvals) + 1))
            if isinstance(c, str):
                cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, "A3: complement(A, size(A) cosize(B)) refused (%s)" % c, "brute-force", error=c, decisions=["A3"]))
                n += 1
                continue
            check_complement(a_shape, a_stride, c)
            c_shape, c_stride = mode_layout(c)
            m2, rule = compose_values(c_shape, c_stride, bvals, flat(b_shape))
            modes = None if m2 is None else [(s, d) for s, d in zip(flat(a_shape), flat(a_stride))] + m2
            how = "A3: (A, C o B) with C = complement(A, size(A) cosize(B)) = %s, C(B(i)) at each point" % layout_text(c_shape, c_stride)
        if modes is None:
            cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, how + ": refused under strict (%s)" % (rule if isinstance(rule, str) else "no layout"),
                              "brute-force", error=rule, decisions=["A3", "D15"] if rule == "composition-image-in-domain" else ["A3"]))
        else:
            cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, how + "; a layout tiler: every variant is the same function",
                              "brute-force", expect=layout_json(*mode_layout(modes)), decisions=["A3", "D17"]))
        n += 1
    return cases


def group_modes(modes, b_modes_flat_sizes):
    """Splits refined modes into runs whose extents multiply to each given size."""
    out, k = [], 0
    for want in b_modes_flat_sizes:
        run, p = [], 1
        while p < want:
            run.append(modes[k])
            p *= modes[k][0]
            k += 1
        assert p == want
        out.append(run)
    return out


def gen_blocked_raked(rng):
    cases = []
    for n in range(80):
        op = ["blocked_product", "raked_product"][n % 2]
        a_shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 2))]
        a_stride = compact_stride(a_shape) if rng.random() < 0.6 else like(a_shape, lambda: rng.randint(0, 6))
        b_shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 2))]
        b_stride = compact_stride(b_shape) if rng.random() < 0.6 else like(b_shape, lambda: rng.randint(1, 5))
        args = {"a": layout_text(a_shape, a_stride), "b": layout_text(b_shape, b_stride)}
        r = max(len(a_shape), len(b_shape))
        pa = (a_shape + [1] * r)[:r], (a_stride + [0] * r)[:r]
        pb = (b_shape + [1] * r)[:r], (b_stride + [0] * r)[:r]
        bvals = values(b_shape, b_stride)
        c = complement_modes(a_shape, a_stride, size(a_shape) * (max(bvals) + 1))
        note = "A5: padded to rank %d, mode i = %s with P1 = complement(A, size(A) cosize(B)) o B" % (r, "(A_i, P1_i)" if op == "blocked_product" else "(P1_i, A_i)")
        if isinstance(c, str):
            cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, note + ": the complement is refused", "brute-force", error=c, decisions=["A5"]))
            continue
        check_complement(a_shape, a_stride, c)
        c_shape, c_stride = mode_layout(c)
        m2, rule = compose_values(c_shape, c_stride, bvals, flat(b_shape))
        if m2 is None:
            cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, note + ": C o B is refused", "brute-force", error=rule, decisions=["A5"]))
            continue
        runs = group_modes(m2, pb[0])
        shape, stride = [], []
        for i in range(r):
            p_shape, p_stride = [e for e, _ in runs[i]] or [1], [d for _, d in runs[i]] or [0]
            ma = (pa[0][i], pa[1][i])
            if op == "blocked_product":
                shape.append([ma[0], p_shape]), stride.append([ma[1], p_stride])
            else:
                shape.append([p_shape, ma[0]]), stride.append([p_stride, ma[1]])
        cases.append(case(f"g-s3-{op}-{n:04d}", "§3", op, args, note + "; C = %s, C(B(i)) at each point" % layout_text(c_shape, c_stride),
                          "brute-force", expect=layout_json(shape, stride), decisions=["A5"]))
    return cases


def min_preimage(shape, stride):
    """For each offset from 0 up to the first one L misses: the least index mapping to it."""
    pre = {}
    for i, v in enumerate(values(shape, stride)):
        pre.setdefault(v, i)
    out, k = [], 0
    while k in pre:
        out.append(pre[k])
        k += 1
    return out


def gen_inverses(rng):
    cases = []
    n = 0
    while n < 160:
        shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        if n % 2 == 0:  # a permuted compact layout, sometimes scaled, with stride-0 or size-1 modes
            perm = list(range(len(shape)))
            rng.shuffle(perm)
            cs = compact_stride([shape[p] for p in perm])
            stride = [0] * len(shape)
            for k, p in enumerate(perm):
                stride[p] = cs[k]
            if rng.random() < 0.3:
                stride[rng.randrange(len(shape))] *= 2
            if rng.random() < 0.3:
                shape.append(rng.randint(2, 3))
                stride.append(0)
        else:
            stride = [rng.randint(0, 9) for _ in shape]
        kept = [(s, d) for s, d in zip(shape, stride) if s != 1 and d != 0] or [(1, 0)]
        if not injective_values(values(*mode_layout(kept))) or any(d < 0 for d in stride):
            continue  # A8's laws are stated for layouts whose filter is injective
        lt = layout_text(shape, stride)
        if n % 2 == 0:
            # A8 right_inverse: L(R(i)) == i up to the first offset L misses (maximal: filter(L) injective).
            f = min_preimage(shape, stride)
            modes = as_layout(f, [len(f)])
            assert modes is not None, (shape, stride, f)
            cases.append(case(f"g-s3-right-inverse-{n:04d}", "§3", "right_inverse", {"layout": lt},
                              "A8: R(i) = the index of offset i (stride-0 coordinates 0) for i < %d, the first offset L misses" % len(f),
                              "brute-force", expect=layout_json(*mode_layout(modes)), decisions=["A8"]))
        else:
            # A8 left_inverse(L) = right_inverse((L, complement(L, 1)))
            c = complement_modes(shape, stride, 1)
            cos = max(values(shape, stride)) + 1
            f = None if isinstance(c, str) else min_preimage(shape + [e for e, _ in c], stride + [d for _, d in c])
            if f is None or len(f) < cos:
                # A8 (issue 44): where (L, complement(L, 1)) is refused or leaves a gap, the
                # digit-aligned left inverse, checked R(L(i)) == i (L(R(L(i))) == L(i)) here.
                why = "complement(L, 1) refused" if f is None else "(L, complement(L, 1)) misses offset %d < cosize %d" % (len(f), cos)
                r = digit_left_inverse(shape, stride)
                if r is None:
                    cases.append(case(f"g-s3-left-inverse-{n:04d}", "§3", "left_inverse", {"layout": lt}, "A8: " + why + ", and no digit-aligned left inverse exists",
                                      "brute-force", error=[c, "left-inverse-gaps"] if f is None else "left-inverse-gaps", decisions=["A8"]))
                else:
                    lv = values(shape, stride)
                    assert all(lv[evaluate(r[0], r[1], v)] == v for v in lv), (shape, stride, r)
                    cases.append(case(f"g-s3-left-inverse-{n:04d}", "§3", "left_inverse", {"layout": lt},
                                      "A8: " + why + "; the digit-aligned left inverse, checked L(R(L(i))) == L(i)", "brute-force",
                                      expect=layout_json(*r), decisions=["A8"]))
            else:
                modes = as_layout(f, [len(f)])
                assert modes is not None, (shape, stride, f)
                lv = values(shape, stride)
                e_shape, e_stride = mode_layout(modes)
                assert all(evaluate(e_shape, e_stride, lv[i]) == i for i in range(len(lv)) if lv.index(lv[i]) == i)
                cases.append(case(f"g-s3-left-inverse-{n:04d}", "§3", "left_inverse", {"layout": lt},
                                  "A8: the right inverse of (L, complement(L, 1) = %s); checked R(L(i)) == i" % layout_text(*mode_layout(c)),
                                  "brute-force", expect=layout_json(e_shape, e_stride), decisions=["A8"]))
        n += 1
    return cases


# ---- §7.4: distribute, assemble, reshard, typeinfer ---------------------------------------------

def instances(axes):
    """Every mesh coordinate, in device order (D12: row-major, the last axis fastest)."""
    out = [[]]
    for a in axes:
        out = [m + [k] for m in out for k in range(a[1])]
    return out


def distribute_bf(g, strides, axes, storage, data):
    """Each instance writes the elements it owns (D3): global coordinate g[k] = m[a] * local[k] +
    c[k] on Split dims, the datum at g's row-major index (the logical shape regroups into G
    row-major, D2), at offset sum g[k] * stride[k] of its engine's buffer; a buffer reaches the
    largest offset its engine's instances write, unwritten offsets 0 (the reference's convention:
    spec/ leaves the length open). Returns {engine: buffer}."""
    extents = [a[1] for a in axes]
    devices = size(extents)
    local = [1 if any(a[2] == k for a in axes) else e for k, e in enumerate(g)]
    writes = {}
    for dev, m in enumerate(instances(axes)):
        engine = dev if storage == "rmem" else 0 if storage == "gmem" else dev // (devices // extents[0])
        buf = writes.setdefault(engine, {})
        for li in range(size(local)):
            c = idx2crd(li, list(reversed(local)))[::-1]  # any order: every local coordinate
            coord = list(c)
            for a, mi in zip(axes, m):
                if a[2] is not None:
                    coord[a[2]] = mi * local[a[2]] + c[a[2]]
            row = 0
            for x, e in zip(coord, g):
                row = row * e + x
            off = sum(x * d for x, d in zip(coord, strides))
            buf[off] = data[row]
    out = {}
    for engine, w in sorted(writes.items()):
        out[str(engine)] = [w.get(o, 0) for o in range(max(w) + 1)]
    return out


def runs_of(rng, g):
    """A logical shape that regroups into G (D2): products of consecutive runs of G's dims (a
    trailing run of size-1 dims joins the run before, as D2 reads it)."""
    while True:
        t, cur = [], 1
        for k, e in enumerate(g):
            cur *= e
            if k == len(g) - 1 or rng.random() < 0.5:
                t.append(cur)
                cur = 1
        if regroup(t, g) is not None:
            return t


def gen_s7_exec(rng):
    cases = []
    for n in range(90):
        storage = ["rmem", "gmem", "smem"][n % 3]
        g, strides, axes, topo = rand_shard(rng, storage, max_devices=16, max_size=96)
        t = runs_of(rng, g)
        data = [rng.randint(-50, 50) for _ in range(size(g))] if n % 2 else list(range(size(g)))
        bufs = distribute_bf(g, strides, axes, storage, data)
        lt = shard_text(g, strides, axes, topo)
        args = {"layout": lt, "shape": t, "storage": storage}
        if n % 2:
            args["data"] = data
        cases.append(case(f"g-s7-distribute-{n:04d}", "§7", "shard.distribute", args,
                          "D3: each instance writes what it owns at its engine (%s) and offset; data row-major (D2)" % storage,
                          "brute-force", expect={"storage": storage, "buffers": bufs}, decisions=["D3", "D12"]))
        engines = {"storage": storage, "buffers": bufs}
        cases.append(case(f"g-s7-assemble-{n:04d}", "§7", "shard.assemble", {"layout": lt, "shape": t, "engines": engines},
                          "the inverse of distribute: every element read back from an instance that owns it", "brute-force",
                          expect={"shape": t, "data": data}, decisions=["D3"]))
        if storage == "rmem" and any(a[2] is None and a[1] > 1 for a in axes) and n % 4 == 1:
            # two replicas (instances differing only on a Broadcast axis) disagree on one element
            bad = json.loads(json.dumps(bufs))
            bad["0"][0] += 1
            cases.append(case(f"g-s6-replica-mismatch-{n:04d}", "§6", "shard.assemble",
                              {"layout": lt, "shape": t, "engines": {"storage": storage, "buffers": bad}},
                              "instance 0 and a replica along a Broadcast axis disagree at offset 0", "brute-force", error="replica-mismatch"))
    for n in range(60):
        ss = ["rmem", "gmem", "smem"][n % 3]
        ds = ["gmem", "rmem", "smem", "rmem", "gmem"][n % 5]
        kind = "smem" if "smem" in (ss, ds) else "rmem"
        g, s_strides, s_axes, s_topo = rand_shard(rng, ss if kind != "smem" else "smem", max_devices=16, max_size=96)
        if kind == "smem" and ss == "rmem":
            continue
        _, d_strides, d_axes, d_topo = rand_shard(rng, ds if kind != "smem" else "smem", g_fixed=g, max_devices=16, max_size=96)
        if ds == "rmem":  # an smem-style mesh (cta*thread) with the per-instance form on rmem
            d_strides = per_instance(g, d_axes)
        t = runs_of(rng, g)
        data = [rng.randint(-9, 9) for _ in range(size(g))]
        args = {"src": shard_text(g, s_strides, s_axes, s_topo), "dst": shard_text(g, d_strides, d_axes, d_topo), "shape": t,
                "src_storage": ss, "dst_storage": ds, "data": data}
        cases.append(case(f"g-s7-reshard-{n:04d}", "§7.4", "shard.reshard", args,
                          "§7.4: the value is preserved; the engines are what distribute makes on dst (D3)", "brute-force",
                          expect={"preserved": True, "engines": {"storage": ds, "buffers": distribute_bf(g, d_strides, d_axes, ds, data)}},
                          decisions=["D3"]))
    level = {"rmem": 0, "smem": 1, "gmem": 2}
    for n in range(90):
        ss = ["gmem", "rmem", "smem"][n % 3]
        ds = ["rmem", "gmem", "smem", "rmem"][n % 4]
        if ss == "gmem" and ds == "smem":
            continue  # the per-instance form for a CTA's threads aliases (D4): hand cases
        g, _, axes, topo = rand_shard(rng, "smem" if "smem" in (ss, ds) else "rmem")
        t = runs_of(rng, g)
        down = level[ds] < level[ss] or (ds == ss == "rmem")
        strides = per_instance(g, axes) if down else compact_stride(list(reversed(g)))[::-1]
        local = [1 if any(a[2] == k for a in axes) else e for k, e in enumerate(g)]
        args = {"layout": shard_text(g, None, axes, topo, none_strides=True), "shape": t, "src_storage": ss, "dst_storage": ds}
        cases.append(case(f"g-s7-typeinfer-{n:04d}", "§7.4", "shard.typeinfer", args,
                          "D4: %s -> %s materializes the %s form" % (ss, ds, "per-instance" if down else "shared C-order"), "brute-force",
                          expect={"shape": t, "storage": ds, "local_shape": local,
                                  "layout": {"layout": {"kind": "layout", "shape": g, "stride": strides}}}, decisions=["D4"]))
    return cases


def per_instance(g, axes):
    """D4's per-instance form: 0 on Split dims, C order over the local shape elsewhere."""
    strides, p = [0] * len(g), 1
    for k in reversed(range(len(g))):
        if any(a[2] == k for a in axes):
            continue
        strides[k], p = p, p * g[k]
    return strides


# ---- prove ops (spec/PROVE.md): verdicts by brute force over small instances ---------------------

def box(bounds):
    """Every assignment of the symbols within their bounds {name: (lo, hi)}."""
    out = [{}]
    for name, (lo, hi) in bounds.items():
        out = [dict(a, **{name: v}) for a in out for v in range(lo, hi + 1)]
    return out


def subst(t, env):
    return [subst(v, env) for v in t] if isinstance(t, list) else env.get(t, t) if isinstance(t, str) else t


def assume_of(bounds):
    return ["%d <= %s <= %d" % (lo, name, hi) for name, (lo, hi) in bounds.items()]


def verdict(holds):
    return {"verdict": "PROVED" if holds else "REFUTED"}


def gen_prove(rng):
    cases = []
    # injective (§2): concrete layouts, and symbolic ones whose symbols an assumption bounds
    for n in range(5):
        shape, stride = rand_layout(rng, lo=0, hi=6, max_rank=3, max_extent=4, nest=False, max_size=64)
        vals = values(shape, stride)
        cases.append(case(f"g-prove-injective-{n:04d}", "§2", "prove.injective", {"layout": layout_text(shape, stride)},
                          "brute force: %s at all %d points" % ("distinct offsets" if injective_values(vals) else "two points share an offset", len(vals)),
                          "brute-force", expect=verdict(injective_values(vals))))
    templates = [(["M", "N"], [1, "K"]), (["M", "N"], ["K", 1]), (["M", 2], [1, "K"]), ([4, "N"], ["K", 1]), (["M", "N"], [2, "K"])]
    for n, (shape, stride) in enumerate(templates):
        names = sorted({x for x in shape + stride if isinstance(x, str)})
        bounds = {v: (1, rng.randint(2, 4)) for v in names}
        holds = all(injective_values(values(subst(shape, e), subst(stride, e))) for e in box(bounds))
        cases.append(case(f"g-prove-injective-box-{n:04d}", "§2", "prove.injective", {"layout": layout_text(shape, stride), "assume": assume_of(bounds)},
                          "brute force over the %d instances of the box" % len(box(bounds)), "brute-force", expect=verdict(holds)))
    # in-bounds (§3): every offset in [0, E)
    for n in range(5):
        shape, stride = rand_layout(rng, lo=-2, hi=6, max_rank=3, max_extent=4, nest=False, max_size=64)
        vals = values(shape, stride)
        e = max(vals) + rng.choice([0, 1, 1, 2])
        holds = min(vals) >= 0 and max(vals) < e
        cases.append(case(f"g-prove-in-bounds-{n:04d}", "§3", "prove.in-bounds", {"layout": layout_text(shape, stride), "size": e},
                          "brute force: offsets in [%d, %d], E = %d" % (min(vals), max(vals), e), "brute-force", expect=verdict(holds)))
    for n, (shape, stride, e) in enumerate([(["M", "N"], [1, "M"], "M*N"), (["M", "N"], [1, "K"], "M*K"), (["M", "N"], ["N", 1], "M*N-1")]):
        bounds = {v: (1, 3) for v in sorted({x for x in shape + stride if isinstance(x, str)})}
        holds = True
        for env in box(bounds):
            ev = eval(e, {}, dict(env))
            vals = values(subst(shape, env), subst(stride, env))
            holds = holds and min(vals) >= 0 and max(vals) < ev
        cases.append(case(f"g-prove-in-bounds-box-{n:04d}", "§3", "prove.in-bounds", {"layout": layout_text(shape, stride), "size": e, "assume": assume_of(bounds)},
                          "brute force over the %d instances of the box" % len(box(bounds)), "brute-force", expect=verdict(holds)))
    # equivalent (§3): the same size and the same offset at every index (D1)
    for n in range(5):
        shape, stride = rand_layout(rng, lo=0, hi=6, max_rank=3, max_extent=4, nest=False, max_size=64)
        if n % 2:
            b_shape, b_stride = mode_layout(coalesce_flat(shape, stride))
        else:
            b_shape, b_stride = list(shape), list(stride)
            k = rng.randrange(len(b_stride))
            b_stride[k] += rng.choice([0, 1])
        holds = size(shape) == size(b_shape) and values(shape, stride) == values(b_shape, b_stride)
        cases.append(case(f"g-prove-equivalent-{n:04d}", "§3", "prove.equivalent", {"a": layout_text(shape, stride), "b": layout_text(b_shape, b_stride)},
                          "brute force: the offsets at every index (D1)", "brute-force", expect=verdict(holds), decisions=["D1"]))
    # divides (§6): N % D == 0 for every instance
    for n in range(6):
        d = rng.choice([2, 3, 4, 8])
        if n % 2:
            lo, hi = 1, rng.randint(2, 5)
            f = rng.choice([1, 2, 4, 6])
            ext = "M*%d" % f
            holds = all((m * f) % d == 0 for m in range(lo, hi + 1))
            args = {"extent": ext, "divisor": str(d), "assume": ["%d <= M <= %d" % (lo, hi)]}
        else:
            x = rng.randint(1, 64)
            holds = x % d == 0
            args = {"extent": str(x), "divisor": str(d)}
        cases.append(case(f"g-prove-divides-{n:04d}", "§6", "prove.divides", args, "brute force over the instances", "brute-force",
                          expect=verdict(holds), decisions=["D8"]))
    return cases


def write(path, made_by, cases, description):
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"format": 1,\n "made_by": %s,\n "description": %s,\n "cases": [\n'
                % (json.dumps(made_by, ensure_ascii=False), json.dumps(description, ensure_ascii=False)))
        f.write(",\n".join("  " + json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases))
        f.write("\n ]}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "spec", "corpus"))
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 unless the files in --out are what this seed generates")
    a = ap.parse_args()
    how = f"brute-force: conformance/gen/gen_corpus.py --seed {a.seed} (expected values evaluated from the definitions, point by point)"
    groups = [
        ("gen-s1-inttuple.json", gen_s1, "§1 IntTuple functions (compatible, congruent, idx2crd by D1, crd2idx, shape_div as pycute, prefix_product, product, flatten, depth, rank) evaluated on random tuples"),
        ("gen-s2-injective.json", gen_s2, "§2 injectivity by enumerating every offset"),
        ("gen-s3-layout.json", gen_s3_layout, "§3 eval (D1), size, cosize, coalesce (the same function), filter, enumerated"),
        ("gen-s3-composition.json", lambda rng: gen_s3_composition(rng, 500, 150),
         "§3 composition A(B(i)) at every point, answered when the values are a layout over a refinement of B's shape (D17), strict and extend (D15)"),
        ("gen-s4-composed.json", gen_s4, "§4 ComposedLayout eval and shape: inner(offset + outer(coord))"),
        ("gen-s5-mesh.json", gen_s5, "§5 meshes: topology_domain (D6), row-major layout (D12), constant slices (D7)"),
        ("gen-s6-split.json", gen_s6, "§6 one Split: divisibility and the canonical extent (D8)"),
        ("gen-s7-shard.json", gen_s7, "§7 local shape, dim view (D10) and physical element (D3, D12) of random canonical shard layouts"),
        ("gen-s8-regroup.json", gen_s8, "§8 regroup of a logical shape into G (D2)"),
        ("gen-s3-complement.json", gen_complement,
         "§3 complement: CuTe's construction as A2 states it, each answer checked by enumeration (injective, disjoint from an injective A)"),
        ("gen-s3-divide-product.json", gen_divide_product,
         "§3 logical/zipped/tiled/flat divide and product with a layout tiler, from A3's definitions: the complement above, then composition point by point"),
        ("gen-s3-blocked-raked.json", gen_blocked_raked, "§3 blocked and raked products from A5: padded modes, (A_i, P1_i) or (P1_i, A_i), point by point"),
        ("gen-s3-inverse.json", gen_inverses,
         "§3 right_inverse as the least preimage of each offset up to the first one missed, left_inverse as the right inverse of (L, complement(L, 1)), else the digit-aligned left inverse (A8)"),
        ("gen-s7-exec.json", gen_s7_exec,
         "§7 distribute / assemble / reshard by placing every element at its engine and offset (D3, D12), typeinfer's materialized strides by D4"),
        ("gen-prove.json", gen_prove, "prove ops (spec/PROVE.md): PROVED / REFUTED by enumerating every instance, symbols bounded by the case's assumptions"),
    ]
    total = 0
    for i, (name, fn, description) in enumerate(groups):
        rng = random.Random(a.seed * 1000 + i)  # one stream per file: a file changes only with its generator
        cases = fn(rng)
        path = os.path.join(a.out, name)
        if a.check:
            tmp = path + ".check"
            write(tmp, how, cases, description)
            same = open(tmp, encoding="utf-8").read() == open(path, encoding="utf-8").read()
            os.remove(tmp)
            if not same:
                print(f"{name}: differs from what --seed {a.seed} generates")
                sys.exit(1)
            print(f"{name}: as generated")
            continue
        write(path, how, cases, description)
        total += len(cases)
        print(f"{name}: {len(cases)} cases")
    if not a.check:
        print(f"total {total}")


if __name__ == "__main__":
    main()
