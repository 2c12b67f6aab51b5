"""tfspec.peers: JAX and DTensor objects read by the reference (spec/SHARD.md I1-I6). Expected
layouts are derived by hand (the same derivations as protocol/tests/imports_test.cpp).

The DTensor objects here are stand-ins with DTensor's attribute names (torch is not needed to
test how they are read; whether the reading matches torch is the DTensor differential's job, not
written yet). The JAX test uses jax itself and is skipped, with the reason, where jax is absent."""
import os

import pytest

import tfspec
from tfspec import peers


class _Mesh:  # numpy-free stand-in for DeviceMesh.mesh (a tensor of ranks)
    def __init__(self, rows):
        self.rows = rows
        self.shape = (len(rows), len(rows[0]))

    def flatten(self):
        return self

    def tolist(self):
        return [r for row in self.rows for r in row]


class DeviceMesh:
    def __init__(self, rows, names):
        self.mesh, self.mesh_dim_names = _Mesh(rows), names


class Shard:
    def __init__(self, dim):
        self.dim = dim


class Replicate:
    pass


class Partial:
    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op


class _StridedShard:
    def __init__(self, dim, split_factor):
        self.dim, self.split_factor = dim, split_factor


def test_dtensor_objects_as_text():
    mesh = DeviceMesh([[0, 2], [1, 3]], ("dp", "tp"))  # a transposed order: device = dp + 2 tp
    args = peers.dtensor_args(mesh, [Shard(1), Partial("max")], (3, 8))
    assert args == {"mesh": "dp=2,tp=2", "placements": "Shard(1), Partial('max')", "shape": "(3,8)", "devices": "0,2,1,3"}
    assert peers.placement_text(_StridedShard(0, 2)) == "_StridedShard(0, split_factor=2)"
    assert peers.placement_text(Replicate()) == "Replicate()"


def test_dtensor_import():
    # Shard(1) on dp cuts dim 1 (8) into (2 @ dp, 4); tp is Partial(max); strides: 0 on the Split
    # dim, C order over the local (3, 4); the order 0,2,1,3 is the mesh layout (2,2):(1,2).
    r = peers.from_dtensor(DeviceMesh([[0, 2], [1, 3]], ("dp", "tp")), [Shard(1), Partial("max")], (3, 8))
    assert r["text"] == 'shard((3,2,4):(4,0,1); S(1),P("max"); device(4)|dp=2,tp=2|layout=(2,2):(1,2))'
    assert tuple(r["local_shape"]) == (3, 4)
    with pytest.raises(tfspec.SpecError) as e:  # I4: avg has no spec Partial
        peers.from_dtensor(DeviceMesh([[0, 1], [2, 3]], None), [Shard(0), Partial("avg")], (4,))
    assert e.value.rule == "import-partial-reduction"


def test_jax_named_sharding():
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    jax = pytest.importorskip("jax", reason="jax is not installed (pip install jax); the JAX reading is not tested")
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    if len(jax.devices()) < 4:
        pytest.skip("jax sees fewer than 4 devices (XLA_FLAGS was set after jax started)")
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    # ("y", "x") on (8,): y outer: (2 @ y, 2 @ x, 2).
    r = peers.from_jax(NamedSharding(mesh, P(("y", "x"))), (8,))
    assert r["text"] == "shard((2,2,2):(0,0,1); S(1),S(0); device(4)|x=2,y=2)"
