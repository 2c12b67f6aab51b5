#!/usr/bin/env python3
"""A conformance adapter over JAX's own sharding (`jax.sharding.NamedSharding`, `jax.device_put`,
`jax.make_array_from_single_device_arrays`, on host-platform CPU devices): the protocol of
spec/PROTOCOL.md on stdin/stdout for the shard ops JAX can answer. Run it against the corpus:

    tfspec conform --impl "python3 conformance/adapters/jax_adapter.py" --filter 'shard.*'

JAX answers; nothing of tfspec does. The ShardLayout argument is read by shard_text.py (this
directory's own reader of the notation) into a JAX Mesh (the devices `jax.devices()[d]` placed at
each mesh coordinate as the mesh layout says, D12) and a PartitionSpec (each logical dim's Split
factors, major to minor, as a tuple of mesh axes; spec/SHARD.md I5). Then:

- shard.owners: `NamedSharding.devices_indices_map(shape)`, each device's block as row-major
  element indices; a replica is a device whose block another device holds too.
- shard.distribute: `jax.device_put(x, sharding)`; each device's local array (JAX's, by its own
  index map) is written into the engines at the offsets the layout's strides give (D3, D18).
- shard.assemble: each device's elements are read out of the engines, put on that device, and
  `jax.make_array_from_single_device_arrays` builds the global array.
- shard.reshard: `jax.device_put(jax.device_put(x, src), dst)`, then as distribute on dst
  (un-materialized strides follow D4 first).

Where a device of JAX's answer holds other elements than the layout places there, the reply is an
error `jax-holds-other-elements`; where JAX raises, an error `jax-refused` with JAX's message.
What JAX has no form for (Partial, Dynamic, a dim split by a factor that is not its leading one,
composed or swizzled layouts, more devices than the host platform has) is `skipped` with the
reason; so are inputs the adapter cannot hand to JAX (a short buffer, S None at execution).
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
_N_DEVICES = 64
if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=%d" % _N_DEVICES).strip()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shard_text as st  # noqa: E402
from shard_text import Skipped  # noqa: E402
from tfspec.adapter import Adapter, Refused  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

jax.config.update("jax_enable_x64", True)  # the protocol's values are int64
DEVICES = jax.devices()


def sharding(sl, t_shape):
    """The NamedSharding of `sl` for logical shape `t_shape`, or Skipped where JAX has no form."""
    for a, at in enumerate(sl.attrs):
        if at[0] == "P":
            raise Skipped("Partial on mesh axis %d: JAX has no Partial a host array can be put into (unreduced lives inside jit)" % a)
        if at[0] == "D":
            raise Skipped("Dynamic on mesh axis %d: JAX's UNCONSTRAINED exists only inside jit" % a)
    if st.product(sl.g) != st.product(t_shape):
        raise Skipped("size(G) = %d, the shape holds %d (shard-size-match): no array to shard" % (st.product(sl.g), st.product(t_shape)))
    runs = st.regroup(t_shape, sl.g)
    if runs is None:
        raise Skipped("G %s does not refine the shape %s row-major (shard-regroup)" % (sl.g, t_shape))
    spec = []
    for t, run in enumerate(runs):
        axes, free_seen = [], False
        for k in run:
            if k in sl.split_axis:
                if free_seen:
                    raise Skipped("dim %d is split by mesh axis %s below an unsplit factor: JAX splits a dim into contiguous blocks (I5)" %
                                  (t, sl.mesh.names[sl.split_axis[k]]))
                axes.append(sl.mesh.names[sl.split_axis[k]])
            elif sl.g[k] > 1:
                free_seen = True
        spec.append(None if not axes else axes[0] if len(axes) == 1 else tuple(axes))
    ids = [sl.mesh.device(c) for c in sl.mesh.coords()]
    if min(ids) < 0 or max(ids) >= len(DEVICES) or len(set(ids)) != len(ids):
        raise Skipped("devices %d..%d: the host platform has %d" % (min(ids), max(ids), len(DEVICES)))
    grid = np.empty(sl.mesh.extents, dtype=object)
    for c in sl.mesh.coords():
        grid[c] = DEVICES[sl.mesh.device(c)]
    return NamedSharding(Mesh(grid, tuple(sl.mesh.names)), PartitionSpec(*spec))


class HoldsOther(Exception):
    pass


def _value_in(shards, t_shape):
    """value_at for shard_text.place from JAX's per-device (index, local array)."""
    def value_at(device, _mc, index):
        coord = np.unravel_index(index, t_shape) if t_shape else ()
        index_slices, local = shards[device]
        pos = []
        for c, s, n in zip(coord, index_slices, t_shape):
            start, stop, _ = s.indices(n)
            if not start <= c < stop:
                raise HoldsOther("JAX's device %d holds rows %d..%d of dim %d, not element %d the layout places there" %
                                 (device, start, stop - 1, len(pos), index))
            pos.append(c - start)
        return int(local[tuple(pos)])
    return value_at


def _shards(arr):
    return {s.device.id: (s.index, np.asarray(s.data)) for s in arr.addressable_shards}


def _data(data, t_shape):
    n = st.product(t_shape)
    values = list(range(n)) if data is None else [int(v) for v in data]
    if len(values) != n:
        raise Skipped("%d values for a shape of %d elements (tensor-data-size): no array to put" % (len(values), n))
    return np.array(values, dtype=np.int64).reshape(t_shape)


def _jax(fn):
    try:
        return fn()
    except Skipped:
        raise
    except HoldsOther as e:
        raise Refused("jax-holds-other-elements", str(e))
    except Exception as e:  # noqa: BLE001 - JAX's own refusal is its answer
        raise Refused("jax-refused", "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))


def owners(layout, shape, mesh=None):
    sl, t = st.parse_shard(layout), st.shape_arg(shape)
    st.check_size(t)
    sh = sharding(sl, t)
    blocks = _jax(lambda: sh.devices_indices_map(tuple(t)))
    held = {}
    for dev, idx in blocks.items():
        ranges = [range(*s.indices(n)) for s, n in zip(idx, t)]
        held[dev.id] = sorted(st.row_major(c, t) for c in __import__("itertools").product(*ranges))
    coord_of = {sl.mesh.device(c): list(c) for c in sl.mesh.coords()}
    out = []
    for d in sorted(held):
        replica = any(e != d and held[e] == held[d] for e in held)
        out.append({"device": d, "coord": coord_of[d], "elements": held[d], "replica": replica, "partial": False})
    return {"devices": out}


def distribute(layout, shape, storage, data=None, mesh=None):
    sl, t = st.parse_shard(layout), st.shape_arg(shape)
    st.check_size(t)
    sh = sharding(sl, t)
    x = _data(data, t)
    arr = _jax(lambda: jax.device_put(x, sh))
    return _jax(lambda: st.place(sl, t, storage, _value_in(_shards(arr), t)))


def assemble(layout, shape, engines, mesh=None):
    sl, t = st.parse_shard(layout), st.shape_arg(shape)
    st.check_size(t)
    sh = sharding(sl, t)
    held = st.read(sl, engines)
    blocks = _jax(lambda: sh.devices_indices_map(tuple(t)))
    arrays = []
    for dev, idx in blocks.items():
        ranges = [range(*s.indices(n)) for s, n in zip(idx, t)]
        local = np.zeros([len(r) for r in ranges], dtype=np.int64)
        for c in __import__("itertools").product(*ranges):
            i = st.row_major(c, t)
            if i not in held[dev.id]:
                raise Refused("jax-holds-other-elements", "JAX's device %d holds element %d, which the layout does not place there" % (dev.id, i))
            local[tuple(ci - r.start for ci, r in zip(c, ranges))] = held[dev.id][i]
        if len(held[dev.id]) != local.size:
            raise Refused("jax-holds-other-elements", "the layout places %d elements on device %d, JAX's block holds %d" %
                          (len(held[dev.id]), dev.id, local.size))
        arrays.append(jax.device_put(local, dev))
    glob = _jax(lambda: jax.make_array_from_single_device_arrays(tuple(t), sh, arrays))
    return {"shape": t, "data": [int(v) for v in np.asarray(glob).ravel()]}


def reshard(src, dst, shape, src_storage, dst_storage, data=None, mesh=None):
    a, b, t = st.parse_shard(src), st.parse_shard(dst), st.shape_arg(shape)
    st.check_size(t)
    for s in (src_storage, dst_storage):
        if s not in ("rmem", "smem", "gmem"):
            raise Skipped("storage %r: the adapter places a library's shards in rmem, smem or gmem engines only" % s)
    b = st.materialize(b, src_storage, dst_storage)
    sa, sb = sharding(a, t), sharding(b, t)
    x = _data(data, t)
    y = _jax(lambda: jax.device_put(jax.device_put(x, sa), sb))
    preserved = bool(np.array_equal(np.asarray(y), x))
    return {"preserved": preserved, "engines": _jax(lambda: st.place(b, t, dst_storage, _value_in(_shards(y), t)))}


OPS = {"shard.owners": owners, "shard.distribute": distribute, "shard.assemble": assemble, "shard.reshard": reshard}

if __name__ == "__main__":
    adapter = Adapter("jax", jax.__version__)
    adapter.ops = {name: (fn, True) for name, fn in OPS.items()}
    adapter.serve()
