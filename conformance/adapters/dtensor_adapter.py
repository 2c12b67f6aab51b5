#!/usr/bin/env python3
"""A conformance adapter over PyTorch DTensor's own placement code (`Shard._split_tensor`,
`Partial._partition_value`; no process group): the protocol of spec/PROTOCOL.md on stdin/stdout
for the shard ops DTensor answers without collectives. Run it against the corpus:

    tfspec conform --impl "python3 conformance/adapters/dtensor_adapter.py" --filter 'shard.*'

DTensor answers; nothing of tfspec does. The ShardLayout argument is read by shard_text.py (this
directory's own reader of the notation) into DTensor placements, one per mesh dim: a Split of a
logical dim's leading factors, in mesh-dim order, is `Shard(dim)`; Broadcast is `Replicate()`;
`P(op)` is `Partial(op)` (spec/SHARD.md I4, I5). Then, for every mesh coordinate, the rank's local
tensor is what `distribute_tensor` computes for it: the placements applied in mesh-dim order, each
Shard keeping the coordinate's piece of `_split_tensor`, each Partial replacing the value by
`_partition_value` (the Replicate -> Partial conversion distribute_tensor uses).

- shard.owners: the local tensor of a row-major index tensor, per rank; `partial` where a
  Partial placement makes the values contributions, `replica` where another rank holds the same
  elements.
- shard.distribute: the local tensor of the data, written into the engines at the offsets the
  layout's strides give (D3, D18). DTensor's `Partial("sum")` of a replicated value is `x / n`
  on every rank (floating point), the spec's is x on coordinate 0 and 0 elsewhere (D9): both
  reduce to x, the buffers differ; that departure is recorded (conformance/results/dtensor.md).

assemble and reshard need DTensor's collectives on a process group: not offered here
(python/tests/dtensor_redistribute.py runs `DTensor.redistribute` on 4 gloo processes instead).
What DTensor has no placement for (Dynamic, a dim split below an unsplit factor or out of mesh-dim
order: `_StridedShard` is not emitted) is `skipped` with the reason, as are inputs the adapter
cannot hand to it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shard_text as st  # noqa: E402
from shard_text import Skipped  # noqa: E402
from tfspec.adapter import Adapter, Refused  # noqa: E402

import torch  # noqa: E402

try:
    from torch.distributed.tensor.placement_types import Partial, Replicate, Shard
except ImportError:  # torch < 2.5
    from torch.distributed._tensor.placement_types import Partial, Replicate, Shard


def placements(sl, t_shape):
    """DTensor's placements for `sl` on logical shape `t_shape`, or Skipped where it has none."""
    if st.product(sl.g) != st.product(t_shape):
        raise Skipped("size(G) = %d, the shape holds %d (shard-size-match): no tensor to place" % (st.product(sl.g), st.product(t_shape)))
    runs = st.regroup(t_shape, sl.g)
    if runs is None:
        raise Skipped("G %s does not refine the shape %s row-major (shard-regroup)" % (sl.g, t_shape))
    dim_of = {k: t for t, run in enumerate(runs) for k in run}
    for t, run in enumerate(runs):
        last_axis, free_seen = -1, False
        for k in run:
            if k in sl.split_axis:
                a = sl.split_axis[k]
                if free_seen or a < last_axis:
                    raise Skipped("dim %d: mesh axis %s splits a factor that is not the next leading one in mesh-dim order "
                                  "(DTensor's Shard cuts the local extent into contiguous blocks; _StridedShard is not emitted, I5)" %
                                  (t, sl.mesh.names[a]))
                last_axis = a
            elif sl.g[k] > 1:
                free_seen = True
    out = []
    for a, at in enumerate(sl.attrs):
        if at[0] == "S":
            out.append(Shard(dim_of[at[1]]))
        elif at[0] == "B":
            out.append(Replicate())
        elif at[0] == "P":
            out.append(Partial(at[1]))
        else:
            raise Skipped("Dynamic on mesh axis %d: DTensor has no unresolved placement" % a)
    return out


class _MeshSizes:
    """What `Partial._partition_value` asks of a DeviceMesh: the size of a mesh dim."""

    def __init__(self, extents):
        self.extents = extents

    def size(self, mesh_dim=None):
        return self.extents[mesh_dim] if mesh_dim is not None else st.product(self.extents)


def local_tensor(full, sl, places, coord):
    local = full
    for mesh_dim, p in enumerate(places):
        n = sl.mesh.extents[mesh_dim]
        if isinstance(p, Shard):
            pieces, _ = p._split_tensor(local, n, with_padding=False, contiguous=True)
            if len({x.size(p.dim) for x in pieces}) != 1 or pieces[0].size(p.dim) == 0:
                raise Refused("dtensor-uneven", "Shard(%d) on mesh dim %d gives pieces of unequal extent" % (p.dim, mesh_dim))
            local = pieces[coord[mesh_dim]]
        elif isinstance(p, Partial):
            local = p._partition_value(local, _MeshSizes(sl.mesh.extents), mesh_dim)
    return local


def owners(layout, shape, mesh=None):
    sl, t = st.parse_shard(layout), st.shape_arg(shape)
    st.check_size(t)
    places = placements(sl, t)
    full = torch.arange(st.product(t), dtype=torch.int64).reshape(t)
    held = {}
    for c in sl.mesh.coords():
        local = local_tensor(full, sl, [p if isinstance(p, Shard) else Replicate() for p in places], c)
        held[sl.mesh.device(c)] = (list(c), sorted(int(v) for v in local.reshape(-1).tolist()))
    partial = any(isinstance(p, Partial) for p in places)
    partial_dims = [i for i, p in enumerate(places) if isinstance(p, Partial)]
    out = []
    for d in sorted(held):
        # A replica: another rank with the same elements across Replicate dims only (ranks that
        # differ on a Partial dim hold contributions, not copies).
        replica = any(e != d and held[e][1] == held[d][1] and all(held[e][0][i] == held[d][0][i] for i in partial_dims) for e in held)
        out.append({"device": d, "coord": held[d][0], "elements": held[d][1], "replica": replica, "partial": partial})
    return {"devices": out}


def distribute(layout, shape, storage, data=None, mesh=None):
    sl, t = st.parse_shard(layout), st.shape_arg(shape)
    st.check_size(t)
    places = placements(sl, t)
    n = st.product(t)
    values = list(range(n)) if data is None else [int(v) for v in data]
    if len(values) != n:
        raise Skipped("%d values for a shape of %d elements (tensor-data-size): no tensor to place" % (len(values), n))
    full = torch.tensor(values, dtype=torch.int64).reshape(t)
    index = torch.arange(n, dtype=torch.int64).reshape(t)
    locals_ = {}
    for c in sl.mesh.coords():
        idx = local_tensor(index, sl, [p if isinstance(p, Shard) else Replicate() for p in places], c).reshape(-1).tolist()
        val = local_tensor(full, sl, places, c).reshape(-1).tolist()
        locals_[sl.mesh.device(c)] = dict(zip(idx, val))

    def value_at(device, _mc, i):
        if i not in locals_[device]:
            raise Refused("dtensor-holds-other-elements", "DTensor's rank %d does not hold element %d, which the layout places there" % (device, i))
        v = locals_[device][i]
        return int(v) if float(v).is_integer() else v  # a Partial("sum") partition is x / n

    return st.place(sl, t, storage, value_at)


OPS = {"shard.owners": owners, "shard.distribute": distribute}

if __name__ == "__main__":
    adapter = Adapter("dtensor", torch.__version__)
    adapter.ops = {name: (fn, True) for name, fn in OPS.items()}
    adapter.serve()
