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


def rand_shard(rng, storage):
    """A canonical ShardLayout: G flat, some dims Split by a mesh axis of the same extent, others
    Broadcast; strides in the form the storage allows (per-instance for rmem, shared C order
    otherwise). Returns (G, strides, mesh axes [(name, extent, split dim or None)], topologies)."""
    while True:
        g = [rng.choice([1, 2, 2, 3, 4, 4, 6, 8]) for _ in range(rng.randint(1, 4))]
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
        if devices > 64 or size(g) > 512:
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


def write(path, made_by, cases):
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"format": 1,\n "made_by": %s,\n "cases": [\n' % json.dumps(made_by, ensure_ascii=False))
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
        ("gen-s1-inttuple.json", gen_s1),
        ("gen-s2-injective.json", gen_s2),
        ("gen-s3-layout.json", gen_s3_layout),
        ("gen-s3-composition.json", lambda rng: gen_s3_composition(rng, 500, 150)),
        ("gen-s4-composed.json", gen_s4),
        ("gen-s5-mesh.json", gen_s5),
        ("gen-s6-split.json", gen_s6),
        ("gen-s7-shard.json", gen_s7),
        ("gen-s8-regroup.json", gen_s8),
    ]
    total = 0
    for i, (name, fn) in enumerate(groups):
        rng = random.Random(a.seed * 1000 + i)  # one stream per file: a file changes only with its generator
        cases = fn(rng)
        path = os.path.join(a.out, name)
        if a.check:
            tmp = path + ".check"
            write(tmp, how, cases)
            same = open(tmp, encoding="utf-8").read() == open(path, encoding="utf-8").read()
            os.remove(tmp)
            if not same:
                print(f"{name}: differs from what --seed {a.seed} generates")
                sys.exit(1)
            print(f"{name}: as generated")
            continue
        write(path, how, cases)
        total += len(cases)
        print(f"{name}: {len(cases)} cases")
    if not a.check:
        print(f"total {total}")


if __name__ == "__main__":
    main()
