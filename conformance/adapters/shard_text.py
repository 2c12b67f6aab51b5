"""The shard adapters' own reading of tfspec's ShardLayout notation, and their own placement of a
library's per-device arrays into engines (spec/SHARD.md "Text forms", D2, D3, D4, D18). Used by
jax_adapter.py and dtensor_adapter.py; standard library only, and nothing of tfspec computes
anything here: the point of those adapters is that the library answers, so the only arithmetic
this file does is what turns the library's answer into the protocol's form.

Read: `shard(LAYOUT; ATTR,...; MESH)` with LAYOUT a plain integer Layout `SHAPE:STRIDE` (STRIDE
may be `None`) or `None o OFFSET o SHAPE:STRIDE`; MESH `[TOPO*TOPO|]AXES[|layout=L]` with L a
plain Layout or `None o OFFSET o L`; or the JSON forms of spec/PROTOCOL.md. Anything else (sugar,
swizzles, symbolic extents, mesh slices that are not affine offsets) is `Skipped`: the adapters
answer only what they can hand to the library.
"""
import ast
import itertools
import json
import re

try:
    from tfspec.adapter import Skipped
except ImportError:  # run from the repository: the base is in python/
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from tfspec.adapter import Skipped


def _tuple(text):
    """A nested integer tuple in the notation: `(4,(2,3))`, `4`; None for `None`."""
    text = text.strip()
    if text == "None":
        return None
    if not re.fullmatch(r"[\d\s(),-]+", text):
        raise Skipped("not an integer tuple: %s" % text)
    v = ast.literal_eval(text)
    return v


def flat(t):
    if isinstance(t, (tuple, list)):
        return [x for e in t for x in flat(e)]
    return [t]


def product(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def row_major(coord, extents):
    i = 0
    for c, e in zip(coord, extents):
        i = i * e + c
    return i


def coords(extents):
    """Every coordinate of `extents`, row-major (the last fastest)."""
    return itertools.product(*[range(e) for e in extents])


def _plain_layout(text):
    """(offset, shape list, stride list or None) of `[None o N o] SHAPE:STRIDE`."""
    text = text.strip()
    offset = 0
    m = re.fullmatch(r"None\s+o\s+(-?\d+)\s+o\s+(.*)", text, re.S)
    if m:
        offset, text = int(m.group(1)), m.group(2).strip()
    if " o " in text or "Sw<" in text or "linear[" in text:
        raise Skipped("a composed, swizzled or linear layout: %s" % text)
    if ":" not in text:
        raise Skipped("a layout without strides: %s" % text)
    shape_text, stride_text = text.split(":", 1)
    shape = flat(_tuple(shape_text))
    stride = _tuple(stride_text)
    return offset, shape, (None if stride is None else flat(stride))


def _json_layout(j):
    if not isinstance(j, dict) or j.get("kind", "layout") != "layout":
        raise Skipped("a layout the adapter does not read: %s" % json.dumps(j)[:80])
    stride = j.get("stride")
    return 0, flat(j["shape"]), (None if stride is None else flat(stride))


class Mesh:
    def __init__(self, names, extents, topologies, offset=0, strides=None):
        self.names, self.extents, self.topologies = names, extents, topologies
        self.offset = offset
        # D12: the default mesh layout is row-major (the last axis fastest)
        self.strides = strides if strides is not None else [product(extents[a + 1:]) for a in range(len(extents))]

    def device(self, coord):
        return self.offset + sum(c * s for c, s in zip(coord, self.strides))

    def coords(self):
        return list(coords(self.extents))

    def cta_of(self, device):
        """D3: the CTA of a device (0 where the mesh has no `cta` topology)."""
        names = [t[0] for t in self.topologies]
        if "cta" not in names:
            return 0
        after = self.topologies[names.index("cta") + 1:]
        if any(n is None for _, n in after):
            raise Skipped("a launch-provided topology extent")
        return device // product([n for _, n in after])


def parse_mesh(m):
    if isinstance(m, dict):
        _, shape, stride = _json_layout(m["layout"])
        topos = m.get("topologies", [])
        topos = [topos] if isinstance(topos, dict) else topos
        names = m.get("names") or [str(a) for a in range(len(shape))]
        return Mesh(list(names), shape, [(t["name"], t.get("num_devices")) for t in topos], 0, stride)
    parts = [p.strip() for p in str(m).split("|")]
    topologies, layout = [], None
    if parts and re.fullmatch(r"[A-Za-z_][\w.]*(\(\w+\))?(\*[A-Za-z_][\w.]*(\(\w+\))?)*", parts[0]) and "=" not in parts[0] \
            and not re.fullmatch(r"[\d,\s]+", parts[0]):
        for t in parts.pop(0).split("*"):
            tm = re.fullmatch(r"([A-Za-z_][\w.]*)(?:\((\w+)\))?", t)
            n = tm.group(2)
            topologies.append((tm.group(1), None if n in (None, "None") else int(n)))
    if parts and parts[-1].startswith("layout="):
        layout = parts.pop()[len("layout="):]
    if len(parts) != 1:
        raise Skipped("a mesh text the adapter does not read: %s" % m)
    names, extents = [], []
    for i, axis in enumerate(a.strip() for a in parts[0].split(",")):
        if "=" in axis:
            name, ext = axis.split("=", 1)
        else:
            name, ext = str(i), axis
        if not re.fullmatch(r"\d+", ext.strip()):
            raise Skipped("a symbolic or launch-provided mesh extent: %s" % axis)
        names.append(name.strip())
        extents.append(int(ext))
    if not topologies:
        topologies = [("device", product(extents))]
    offset, strides = 0, None
    if layout is not None:
        offset, shape, strides = _plain_layout(layout)
        if shape != extents or strides is None:
            raise Skipped("a mesh layout that is not the axes' extents with strides: %s" % layout)
    return Mesh(names, extents, topologies, offset, strides)


_ATTR = re.compile(r"\s*(S\((\d+)\)|Split\((?:axis=)?(\d+)\)|B|Broadcast(?:\(\))?|D|Dynamic(?:\(\))?|"
                   r"P\(\s*(?:\"?(\w*)\"?)?\s*\)|Partial\(\s*(?:reduction=)?\"?(\w*)\"?\s*\))\s*")


def parse_attrs(text):
    out, pos = [], 0
    for item in _split_top(text):
        m = _ATTR.fullmatch(item)
        if not m:
            raise Skipped("an attr the adapter does not read: %s" % item)
        if m.group(2) or m.group(3):
            out.append(("S", int(m.group(2) or m.group(3))))
        elif m.group(1).startswith("B"):
            out.append(("B",))
        elif m.group(1).startswith("D"):
            out.append(("D",))
        else:
            out.append(("P", (m.group(4) or m.group(5) or "sum")))
        pos += 1
    return out


def _attr_json(a):
    if isinstance(a, str):
        return parse_attrs(a)[0]
    k = a.get("kind")
    if k == "split":
        return ("S", int(a["axis"]))
    if k == "broadcast":
        return ("B",)
    if k == "dynamic":
        return ("D",)
    if k == "partial":
        return ("P", a.get("reduction", "sum"))
    raise Skipped("an attr the adapter does not read: %s" % json.dumps(a))


def _split_top(text):
    """Splits at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


class Shard:
    """A ShardLayout: flat G, strides (None when un-materialized), offset, attrs, mesh."""

    def __init__(self, offset, g, strides, attrs, mesh):
        self.offset, self.g, self.strides, self.attrs, self.mesh = offset, g, strides, attrs, mesh
        if len(attrs) != len(mesh.extents):
            raise Skipped("%d attrs for %d mesh axes (a spec rule the adapter leaves to the spec)" % (len(attrs), len(mesh.extents)))
        self.split_axis = {}  # G dim -> the mesh axis that Splits it
        for a, at in enumerate(attrs):
            if at[0] == "S":
                k = at[1]
                if k >= len(g) or k in self.split_axis or g[k] != mesh.extents[a]:
                    raise Skipped("Split(%d) on mesh axis %d is not one canonical split (a spec rule the adapter leaves to the spec)" % (k, a))
                self.split_axis[k] = a

    def has(self, kind):
        return any(a[0] == kind for a in self.attrs)

    def local_shape(self):
        return [1 if k in self.split_axis else e for k, e in enumerate(self.g)]

    def global_coord(self, mesh_coord, local):
        """D3: the layout coordinate mesh instance `mesh_coord` holds at local coordinate `local`."""
        return [mesh_coord[self.split_axis[k]] if k in self.split_axis else c for k, c in enumerate(local)]

    def offset_of(self, g):
        return self.offset + sum(s * c for s, c in zip(self.strides, g))

    def engine(self, storage, device):
        if storage == "rmem":
            return device
        if storage == "smem":
            return self.mesh.cta_of(device)
        if storage == "gmem":
            return 0
        raise Skipped("storage %r: the adapter places a library's shards in rmem, smem or gmem engines only" % storage)


def parse_shard(arg, mesh_arg=None):
    if isinstance(arg, dict):
        if arg.get("kind") != "shard":
            raise Skipped("not a ShardLayout: %s" % json.dumps(arg)[:80])
        offset, g, strides = _json_layout(arg["layout"])
        attrs = [_attr_json(a) for a in arg["attrs"]]
        return Shard(offset, g, strides, attrs, parse_mesh(arg["mesh"]))
    text = str(arg).strip()
    m = re.fullmatch(r"shard\((.*)\)", text, re.S)
    if not m:
        raise Skipped("not the shard(...) text (sugar needs tfspec's canonicalization): %s" % text)
    parts = [p for p in m.group(1).split(";")]
    if len(parts) != 3:
        raise Skipped("a shard text the adapter does not read: %s" % text)
    offset, g, strides = _plain_layout(parts[0])
    return Shard(offset, g, strides, parse_attrs(parts[1]), parse_mesh(parts[2].strip()))


def shape_arg(s):
    """A logical shape given as a JSON list or as text `(8,16)`."""
    if isinstance(s, list):
        return [int(x) for x in flat(s)]
    if isinstance(s, int):
        return [s]
    return [int(x) for x in flat(_tuple(str(s)))]


def regroup(t_shape, g):
    """D2: the runs of G's dims that make each logical dim, left to right (a size-1 G dim joins
    the current run); None where G does not refine T row-major (the spec refuses: shard-regroup)."""
    if not t_shape:
        return None
    runs, t, p = [[] for _ in t_shape], 0, 1
    for k, e in enumerate(g):
        if e == 1:
            runs[min(t, len(t_shape) - 1)].append(k)
            continue
        while t < len(t_shape) and p == t_shape[t]:
            t, p = t + 1, 1
        if t == len(t_shape) or t_shape[t] % (p * e):
            return None
        p *= e
        runs[t].append(k)
    while t < len(t_shape) and p == t_shape[t]:
        t, p = t + 1, 1
    return runs if t == len(t_shape) else None


def materialize(sl, src_storage, dst_storage):
    """D4: strides for an un-materialized layout (S None): toward a lower level (gmem -> smem ->
    rmem) the per-instance form (0 on Split dims, C order over the local shape), toward a higher
    level the shared form (C order over G); at one level rmem per-instance, smem and gmem shared."""
    if sl.strides is not None:
        return sl
    level = {"rmem": 0, "smem": 1, "gmem": 2}
    per_instance = level[dst_storage] < level[src_storage] or (src_storage == dst_storage == "rmem")
    dims = sl.local_shape() if per_instance else sl.g
    strides, run = [0] * len(sl.g), 1
    for k in reversed(range(len(sl.g))):
        if per_instance and k in sl.split_axis:
            continue
        strides[k] = run
        run *= dims[k]
    return Shard(sl.offset, sl.g, strides, sl.attrs, sl.mesh)


MAX_ELEMENTS = 1 << 22  # what the adapters hand a library in one host run


def check_size(t_shape):
    if product(t_shape) > MAX_ELEMENTS:
        raise Skipped("%d elements: more than this adapter's host run takes (2^22)" % product(t_shape))


def place(sl, t_shape, storage, value_at, max_elements=MAX_ELEMENTS):
    """The engines of spec/PROTOCOL.md for `sl` on `storage`: every mesh instance writes, at
    (engine, offset) of each element it holds (D3), `value_at(device, mesh_coord, index)` with
    `index` the element's row-major index in T (D2); buffers run to the largest offset used plus
    one, unused slots 0 (D18)."""
    if sl.strides is None:
        raise Skipped("strides None: the spec executes only materialized layouts (shard-stride-materialized); nothing to place")
    local = sl.local_shape()
    if len(sl.mesh.coords()) * product(local) > max_elements:
        raise Skipped("more than %d (device, element) pairs: too large for this adapter's host run" % max_elements)
    writes, source = {}, {}
    partial = sl.has("P")
    for mc in sl.mesh.coords():
        d = sl.mesh.device(mc)
        e = sl.engine(storage, d)
        for c in coords(local):
            g = sl.global_coord(mc, c)
            off = sl.offset_of(g)
            if off < 0:
                raise Skipped("a negative offset %d: no buffer holds it (engine-offset-negative)" % off)
            i = row_major(g, sl.g)
            first = source.setdefault((e, off), (i, d))
            if first[0] != i or (partial and first[1] != d):
                # Two elements (or two Partial contributions) at one slot: the spec's injectivity
                # over (engine, offset) (D3); the library holds each rank's array apart.
                raise Skipped("elements %d and %d (devices %d, %d) at offset %d of engine %d: the spec's injectivity over "
                              "(engine, offset) (D3); the library keeps each device's array apart" % (first[0], i, first[1], d, off, e))
            writes.setdefault(e, {})[off] = value_at(d, mc, i)
    if sum(max(w) + 1 for w in writes.values()) > (1 << 24):
        raise Skipped("buffers of more than 2^24 slots in all (the spec's resource-limit, D18): too large for this adapter's host run")
    buffers = {}
    for e, w in sorted(writes.items()):
        buf = [0] * (max(w) + 1)
        for off, v in w.items():
            buf[off] = v
        buffers[str(e)] = buf
    return {"storage": storage, "buffers": buffers}


def read(sl, engines):
    """What each mesh instance holds, read back out of engines: {device: {index: value}} (D3);
    Skipped where a buffer is missing or short (there is nothing to hand the library)."""
    if sl.strides is None:
        raise Skipped("strides None: the spec executes only materialized layouts (shard-stride-materialized)")
    storage, buffers = engines.get("storage"), engines.get("buffers", {})
    owned = {str(sl.engine(storage, sl.mesh.device(mc))) for mc in sl.mesh.coords()}
    stray = sorted(set(buffers) - owned)
    if stray:
        raise Skipped("a buffer for engine %s, which no instance owns (engine-unknown): nothing of it reaches the library" % stray[0])
    out = {}
    for mc in sl.mesh.coords():
        d = sl.mesh.device(mc)
        e = str(sl.engine(storage, d))
        if e not in buffers:
            raise Skipped("no buffer for engine %s (engine-missing): nothing to hand the library" % e)
        held = out.setdefault(d, {})
        for c in coords(sl.local_shape()):
            g = sl.global_coord(mc, c)
            off = sl.offset_of(g)
            if off < 0 or off >= len(buffers[e]):
                raise Skipped("engine %s has no offset %d (engine-buffer-size): nothing to hand the library" % (e, off))
            held[row_major(g, sl.g)] = buffers[e][off]
    return out
