"""The sharding objects of JAX and PyTorch DTensor, read by the reference (issue 33;
docs/imports.md, spec/SHARD.md I1-I6).

    >>> from jax.sharding import Mesh, NamedSharding, PartitionSpec as P    # doctest: +SKIP
    >>> tfspec.peers.from_jax(NamedSharding(mesh, P("x", None)), (8, 16))   # doctest: +SKIP

Each object is written as the text `tfspec shard from-jax` / `from-dtensor` takes (the mesh's
axes, its device ids row-major, the spec or placements), then imported by the compiled reference,
so a refusal is the same SpecError with the same rule. Neither library is imported here: the
objects are read by their attributes, and the `*_args` functions need no compiled tfspec.
"""
from typing import Any, Dict, Optional, Sequence


def _shape_text(shape: Sequence[int]) -> str:
    return "(" + ",".join(str(int(e)) for e in shape) + ")"


def jax_args(sharding: Any, shape: Sequence[int]) -> Dict[str, str]:
    """The arguments of `shard.from-jax` for a jax.sharding.NamedSharding on `shape`."""
    mesh = sharding.mesh
    axes = ",".join("%s=%d" % (name, size) for name, size in zip(mesh.axis_names, mesh.devices.shape))
    devices = ",".join(str(d.id) for d in mesh.devices.flat)
    return {"mesh": axes, "spec": repr(sharding.spec), "shape": _shape_text(shape), "devices": devices}


def placement_text(p: Any) -> str:
    """One DTensor placement as text: Shard(d), _StridedShard(d, split_factor=k), Replicate(),
    Partial('op'). Another placement keeps its class name, so the reference refuses it by rule."""
    kind = type(p).__name__
    if kind == "Shard":
        return "Shard(%d)" % p.dim
    if kind == "_StridedShard":
        return "_StridedShard(%d, split_factor=%d)" % (p.dim, p.split_factor)
    if kind == "Replicate":
        return "Replicate()"
    if kind in ("Partial", "_Partial"):
        return "Partial(%r)" % str(getattr(p, "reduce_op", "sum"))
    return "%s()" % kind


def dtensor_args(device_mesh: Any, placements: Sequence[Any], shape: Sequence[int]) -> Dict[str, str]:
    """The arguments of `shard.from-dtensor` for a DeviceMesh, its placements and a global shape."""
    sizes = [int(s) for s in device_mesh.mesh.shape]
    names = getattr(device_mesh, "mesh_dim_names", None)
    axes = ",".join("%s=%d" % (n, s) for n, s in zip(names, sizes)) if names else ",".join(map(str, sizes))
    devices = ",".join(str(int(r)) for r in device_mesh.mesh.flatten().tolist())
    return {"mesh": axes, "placements": ", ".join(placement_text(p) for p in placements),
            "shape": _shape_text(shape), "devices": devices}


def from_jax(sharding: Any, shape: Sequence[int]) -> Any:
    """A NamedSharding on `shape` as the reference's result of `shard.from-jax`."""
    import tfspec
    return tfspec.from_jax(**jax_args(sharding, shape))


def from_dtensor(device_mesh_or_dtensor: Any, placements: Optional[Sequence[Any]] = None, shape: Optional[Sequence[int]] = None) -> Any:
    """A DTensor (or its DeviceMesh, placements and global shape) as `shard.from-dtensor`'s result."""
    import tfspec
    if placements is None:
        t = device_mesh_or_dtensor
        return tfspec.from_dtensor(**dtensor_args(t.device_mesh, t.placements, t.shape))
    if shape is None:
        raise TypeError("from_dtensor(device_mesh, placements, shape): the global shape is needed with a DeviceMesh")
    return tfspec.from_dtensor(**dtensor_args(device_mesh_or_dtensor, placements, shape))
