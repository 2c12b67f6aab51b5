#!/usr/bin/env python3
"""Ownership differential against JAX (issue 33; spec/SHARD.md I1-I6; results in
conformance/results/jax.md).

For seeded random cases (meshes of 1-3 axes, extents 1-8, at most 8 devices, device orders
identity / affine-permuted / arbitrary, random PartitionSpecs with tuples, shapes mostly
divisible), compares what `tfspec shard from-jax` + `tfspec shard owners --json` say each device
holds with `NamedSharding(mesh, spec).devices_indices_map(shape)` on 8 host CPU devices. Also:
replicas (a device's index set held by another device too), refusals (an uneven shape is refused
by tfspec exactly when `jax.device_put` refuses it; an order that is not affine is refused by
tfspec, checked affine-or-not here independently), the way back (`tfspec shard to-jax`'s
sharding `is_equivalent_to` the original), and a reshard to a second random spec on the same
mesh: `jax.device_put` against `tfspec shard reshard ... rmem rmem`, every device's local values
in its buffer's order; and the bytes XLA's compiled reshard receives against `tfspec reshard-plan`'s
lower bound (below it is a disagreement).

Exit 0: all agree; 1: a disagreement (printed with a reproduction command); 77: jax is not
installed (skipped, the reason printed).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python3 python/tests/jax_differential.py \
        --tfspec build/cli/tfspec --cases 300 --seed 1
"""
import argparse
import itertools
import json
import os
import random
import re
import shlex
import subprocess
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
try:
    import numpy as np
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
except ImportError as e:  # the peer is optional: nothing in the default build needs it
    print(f"skipped: jax is not importable by {sys.executable} ({e}); "
          f"install it with `{sys.executable} -m pip install jax` (CPU wheels)")
    sys.exit(77)

NAMES = ["x", "y", "z"]


def random_mesh(rng):
    while True:
        rank = rng.randint(1, 3)
        ext = [rng.randint(1, 8) for _ in range(rank)]
        if int(np.prod(ext)) <= 8:
            return NAMES[:rank], ext


def random_order(rng, ext):
    """Device ids laid out row-major over the mesh axes, as jax.sharding.Mesh holds them."""
    n = int(np.prod(ext))
    kind = rng.choice(["identity", "identity", "affine", "affine", "arbitrary"])
    if kind == "identity":
        return kind, np.arange(n).reshape(ext)
    if kind == "affine":  # a transpose of a row-major block, some axes reversed
        perm = list(range(len(ext)))
        rng.shuffle(perm)
        base = np.arange(n).reshape([ext[p] for p in perm])
        arr = np.transpose(base, np.argsort(perm))
        for a in range(len(ext)):
            if rng.random() < 0.3:
                arr = np.flip(arr, axis=a)
        return kind, np.ascontiguousarray(arr)
    ids = list(range(n))
    rng.shuffle(ids)
    return kind, np.array(ids).reshape(ext)


def is_affine(arr):
    """Independent of tfspec: dev[c] == dev[0] + sum(c[a] * step[a]) everywhere."""
    origin = (0,) * arr.ndim
    steps = [int(arr[tuple(1 if b == a else 0 for b in range(arr.ndim))] - arr[origin]) if arr.shape[a] > 1 else 0
             for a in range(arr.ndim)]
    return all(int(arr[c]) == int(arr[origin]) + sum(ci * s for ci, s in zip(c, steps))
               for c in itertools.product(*[range(e) for e in arr.shape]))


def random_spec_and_shape(rng, names, ext):
    rank = rng.randint(1, 3)
    free = list(range(len(names)))
    rng.shuffle(free)
    entries, shape = [], []
    for _ in range(rank):
        k = rng.choice([0, 1, 1, 2])
        axes = [free.pop() for _ in range(min(k, len(free)))]
        blocks = int(np.prod([ext[a] for a in axes])) if axes else 1
        shape.append(blocks * rng.randint(1, 3))
        if not axes:
            entries.append(None)
        elif len(axes) == 1 and rng.random() < 0.7:
            entries.append(names[axes[0]])
        else:
            entries.append(tuple(names[a] for a in axes))
    uneven = rng.random() < 0.1
    if uneven:  # one dim's extent made odd-sized against its blocks
        dims = [i for i, e in enumerate(entries) if e is not None]
        if dims:
            shape[dims[0]] += 1
    while entries and entries[-1] is None and rng.random() < 0.5:
        entries.pop()  # a shorter spec: the trailing dims are None
    return P(*entries), tuple(shape)


def run(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def indices_by_device(sharding, shape):
    flat = np.arange(int(np.prod(shape))).reshape(shape)
    return {d.id: sorted(int(v) for v in flat[idx].ravel()) for d, idx in sharding.devices_indices_map(shape).items()}


def check_case(cli, rng, i):
    names, ext = random_mesh(rng)
    order, arr = random_order(rng, ext)
    spec, shape = random_spec_and_shape(rng, names, ext)
    devices = np.array(jax.devices()[: arr.size], dtype=object)[arr]
    sharding = NamedSharding(Mesh(devices, tuple(names)), spec)
    mesh_text = ",".join(f"{n}={e}" for n, e in zip(names, ext))
    shape_text = "(" + ",".join(map(str, shape)) + ")" if len(shape) > 1 else f"({shape[0]})"
    argv = ["shard", "from-jax", "--mesh", mesh_text, "--spec", repr(spec), "--shape", shape_text,
            "--devices", ",".join(str(int(d)) for d in arr.ravel())]
    repro = " ".join(shlex.quote(a) for a in [cli, *argv])
    rc, out, err = run(cli, *argv)
    try:
        jax.device_put(np.zeros(shape, np.int32), sharding)
        jax_even = True
    except ValueError:
        jax_even = False
    if not jax_even:  # with a non-affine order too, tfspec may name either refusal (it reads the mesh first)
        if rc == 3 and ("import-uneven" in err or (not is_affine(arr) and "import-device-order" in err)):
            return "refused-uneven", None
        return "fail", f"jax refuses device_put of {shape} with {spec}; tfspec: rc {rc} {err.strip()}\n  {repro}"
    if not is_affine(arr):
        if rc == 3 and "import-device-order" in err:
            return "refused-order", None
        return "fail", f"the order {arr.ravel().tolist()} is not affine; tfspec: rc {rc} {out.strip()} {err.strip()}\n  {repro}"
    if rc != 0:
        return "fail", f"tfspec refused a case jax accepts: {err.strip()}\n  {repro}"
    layout = out.strip().splitlines()[-1]
    rc, out, err = run(cli, "shard", "owners", layout, shape_text, "--json")
    if rc != 0:
        return "fail", f"owners refused {layout}: {err.strip()}\n  {repro}"
    ours = {d["device"]: d for d in json.loads(out)["devices"]}
    theirs = indices_by_device(sharding, shape)
    if sorted(ours) != sorted(theirs):
        return "fail", f"devices differ: tfspec {sorted(ours)} jax {sorted(theirs)}\n  {repro}"
    for dev, elems in theirs.items():
        if ours[dev]["elements"] != elems:
            return "fail", f"device {dev}: tfspec {ours[dev]['elements']} jax {elems}\n  {repro}\n  layout {layout}"
        shared = sum(1 for e in theirs.values() if e == elems) > 1
        if ours[dev]["replica"] != shared or ours[dev]["partial"]:
            return "fail", f"device {dev}: replica {ours[dev]['replica']} (jax: another device holds it: {shared})\n  {repro}"
    # The way back: tfspec's export must be the same sharding to JAX.
    rc, out, err = run(cli, "shard", "to-jax", layout, shape_text)
    if rc != 0:
        return "fail", f"to-jax refused {layout}: {err.strip()}\n  {repro}"
    lines = out.strip().splitlines()
    back_ids = [int(v) for v in lines[1].split()[1].split(",")]
    back_names = [a.split("=")[0] for a in lines[0].split()[1].split(",")]
    back_devices = np.array(jax.devices()[: arr.size], dtype=object)[np.array(back_ids).reshape(ext)]
    back = NamedSharding(Mesh(back_devices, tuple(back_names)), eval(lines[-1], {"P": P}))
    if not back.is_equivalent_to(sharding, len(shape)):
        return "fail", f"to-jax gave {lines[-1]} on {back_ids}, not equivalent to {spec}\n  {repro}"
    return reshard_check(cli, rng, names, ext, arr, sharding, spec, shape, shape_text, layout, repro) or (f"agree-{order}", None)


def divisible_spec(rng, names, ext, shape):
    """A second PartitionSpec for the same shape: each dim's axes multiply to a divisor of it."""
    free = list(range(len(names)))
    rng.shuffle(free)
    entries = []
    for e in shape:
        axes, blocks = [], 1
        for a in list(free):
            if len(axes) < 2 and e % (blocks * ext[a]) == 0 and rng.random() < 0.5:
                axes.append(a)
                blocks *= ext[a]
                free.remove(a)
        entries.append(None if not axes else names[axes[0]] if len(axes) == 1 else tuple(names[a] for a in axes))
    return P(*entries)


def reshard_check(cli, rng, names, ext, arr, src, src_spec, shape, shape_text, src_layout, repro):
    """The reshard differential: jax.device_put from src to dst against `tfspec shard reshard`
    (rmem to rmem): every device's local values, in the order its buffer holds them, are equal."""
    dst_spec = divisible_spec(rng, names, ext, shape)
    devices_arg = ",".join(str(int(d)) for d in arr.ravel())
    mesh_text = ",".join(f"{n}={e}" for n, e in zip(names, ext))
    rc, out, err = run(cli, "shard", "from-jax", "--mesh", mesh_text, "--spec", repr(dst_spec), "--shape", shape_text, "--devices", devices_arg)
    if rc != 0:
        return "fail", f"from-jax refused the destination {dst_spec}: {err.strip()}\n  {repro}"
    dst_layout = out.strip().splitlines()[-1]
    rc, out, err = run(cli, "shard", "reshard", src_layout, dst_layout, shape_text, "rmem", "rmem", "--json")
    if rc != 0:
        return "fail", f"reshard {src_spec} -> {dst_spec} refused: {err.strip()}\n  {repro}"
    ours = {int(k): v for k, v in json.loads(out)["engines"]["buffers"].items()}
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    moved = jax.device_put(jax.device_put(x, src), NamedSharding(src.mesh, dst_spec))
    theirs = {sh.device.id: np.asarray(sh.data).ravel().tolist() for sh in moved.addressable_shards}
    if ours != theirs:
        dev = next(d for d in theirs if ours.get(d) != theirs[d])
        return "fail", (f"reshard {src_spec} -> {dst_spec}: device {dev} holds {theirs[dev]} in jax, {ours.get(dev)} in tfspec\n"
                        f"  {repro}\n  tfspec shard reshard {shlex.quote(src_layout)} {shlex.quote(dst_layout)} {shlex.quote(shape_text)} rmem rmem")
    return xla_bytes_check(cli, src, NamedSharding(src.mesh, dst_spec), x, src_layout, dst_layout, shape_text, repro)


BYTES = {}  # how XLA's reshard compares with tfspec's lower bound: a tally, printed at the end

_SHAPE = re.compile(r"[a-z]+\d*\[([\d,]*)\]")


def _numel(text):
    """Elements of every array shape in an HLO type (a tuple counts each member)."""
    total = 0
    for dims in _SHAPE.findall(text):
        n = 1
        for d in filter(None, dims.split(",")):
            n *= int(d)
        total += n
    return total


def xla_received_elements(hlo, devices):
    """Elements the devices receive, summed, in XLA's compiled reshard (its SPMD program, one copy
    per device): an all-gather receives output - operand on each device; an all-to-all of n pieces
    n - 1 of them; a collective-permute its operand per pair whose source is not its target. None
    when the program holds a collective this does not price (an all-reduce, reduce-scatter)."""
    total = 0
    for line in hlo.splitlines():
        line = line.strip()
        m = re.match(r"(?:ROOT )?%[\w.\-]+ = (.+?) (all-gather|all-to-all|collective-permute|all-reduce|reduce-scatter)(?:-start)?\((.*)", line)
        if not m:
            continue
        out_type, op, rest = m.groups()
        if op == "all-gather":
            operand = re.search(r"\(([^)]*)\)", "(" + rest)
            # the operand's type is not on the line: output / group size = the operand; the group from the dims gathered
            grow = re.search(r"dimensions=\{(\d+)\}", line)
            out_dims = [int(d) for d in _SHAPE.findall(out_type)[0].split(",") if d]
            in_numel = None
            defs = {mm.group(1): mm.group(2) for mm in re.finditer(r"%([\w.\-]+) = (\S+)", hlo)}
            name = re.match(r"\s*%([\w.\-]+)", rest)
            if name and name.group(1) in defs:
                in_numel = _numel(defs[name.group(1)])
            if in_numel is None or not grow:
                return None
            total += devices * (_numel(out_type) - in_numel)
        elif op == "all-to-all":
            pieces = len(_SHAPE.findall(out_type))
            if pieces < 2:
                return None  # the array form (one operand split along a dimension): not priced here
            total += devices * (pieces - 1) * (_numel(out_type) // pieces)
        elif op == "collective-permute":
            pairs = re.findall(r"\{(\d+),(\d+)\}", line.split("source_target_pairs=")[1])
            total += sum(1 for a, b in pairs if a != b) * _numel(out_type)
        else:
            return None
    return total


def xla_bytes_check(cli, src, dst, x, src_layout, dst_layout, shape_text, repro):
    """Where XLA moves data for the reshard (jax.jit with the two shardings), its received bytes
    against `tfspec reshard-plan`'s lower bound and plan (int32): below the bound is a
    disagreement (the bound would be wrong); at or above it is tallied."""
    f = jax.jit(lambda a: a, in_shardings=src, out_shardings=dst)
    hlo = f.lower(jax.device_put(x, src)).compile().as_text()
    received = xla_received_elements(hlo, src.mesh.size)
    if received is None:
        BYTES["xla not priced"] = BYTES.get("xla not priced", 0) + 1
        return None
    rc, out, err = run(cli, "reshard-plan", src_layout, dst_layout, shape_text, "--dtype", "int32", "--json")
    if rc != 0:
        return "fail", f"reshard-plan refused a reshard jax runs: {err.strip()}\n  {repro}"
    plan = json.loads(out)
    xla = 4 * received
    if xla < plan["lower_bound_bytes"]:
        return "fail", f"XLA moves {xla} B, below tfspec's lower bound {plan['lower_bound_bytes']} B: {src.spec} -> {dst.spec}\n  {repro}"
    key = "xla at the bound" if xla == plan["lower_bound_bytes"] else "xla above the bound"
    BYTES[key] = BYTES.get(key, 0) + 1
    if plan["bytes"] < xla:
        BYTES["tfspec's plan below xla"] = BYTES.get("tfspec's plan below xla", 0) + 1
    elif plan["bytes"] > xla:
        BYTES["xla below tfspec's plan"] = BYTES.get("xla below tfspec's plan", 0) + 1
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfspec", default=os.environ.get("TFSPEC_CLI", "build/cli/tfspec"))
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if len(jax.devices()) < 8:
        print(f"skipped: jax sees {len(jax.devices())} devices; set XLA_FLAGS=--xla_force_host_platform_device_count=8 before it starts")
        return 77
    rng = random.Random(a.seed)
    counts, failures = {}, []
    for i in range(a.cases):
        verdict, why = check_case(a.tfspec, rng, i)
        counts[verdict] = counts.get(verdict, 0) + 1
        if why:
            failures.append(f"case {i}: {why}")
    print(f"jax {jax.__version__}, seed {a.seed}, {a.cases} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("reshard bytes, XLA's compiled program against tfspec: " + ", ".join(f"{k} {v}" for k, v in sorted(BYTES.items())))
    for f in failures[:20]:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
