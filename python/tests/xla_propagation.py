#!/usr/bin/env python3
"""Shard propagation against XLA (issue 33; spec/PROPAGATION.md; results in
conformance/results/xla-propagation.md).

Each program (propagation/examples/*.json and the ones below: a tensor-parallel MLP, a
data-parallel batch, a reduction over a sharded dim, a transpose and reshape) runs two ways:
  * `tfspec propagate PROGRAM --json`: a layout for every value (Partials kept), conflicts named;
  * the same program as a JAX function under `jax.jit` with the inputs' shardings (from
    `tfspec shard to-jax`), returning every value, so that XLA chooses a sharding for each; read
    from `.compile().output_shardings`, and the collectives from XLA's program.
Each value is then classified: **same** (the same elements on every device, by `tfspec shard
owners` on both layouts), **Partial kept by tfspec** (XLA cannot return an unreduced value, so it
reduced it: the collective named), **differs** (both legal, different choices), or **tfspec
conflict** (tfspec refuses where XLA inserts a collective). Exit 0 when every comparison ran and
says what EXPECTED (below, derived from the spec) says; 1 otherwise; 77 without jax.

    python3 python/tests/xla_propagation.py --tfspec build/cli/tfspec
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
try:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
except ImportError as e:
    print(f"skipped: jax is not importable by {sys.executable} ({e}); install it with `{sys.executable} -m pip install jax`")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Programs beyond the examples (spec/PROPAGATION.md's format), each a common sharding pattern.
PROGRAMS = {
    "tensor-parallel MLP (Megatron: column- then row-parallel, batch on x)": {
        "mesh": "x=2,y=2",
        "inputs": {"a": {"shape": [8, 4], "layout": "(8 @ m.x, 4)"},
                   "w1": {"shape": [4, 16], "layout": "(4, 16 @ m.y)"},
                   "w2": {"shape": [16, 4], "layout": "(16 @ m.y, 4)"}},
        "ops": [{"op": "matmul", "operands": ["a", "w1"], "result": "h"},
                {"op": "relu", "operands": ["h"], "result": "r"},
                {"op": "matmul", "operands": ["r", "w2"], "result": "o"}],
        "outputs": ["o"]},
    "data-parallel batch (weights replicated)": {
        "mesh": "x=4",
        "inputs": {"a": {"shape": [16, 8], "layout": "(16 @ m.x, 8)"},
                   "w": {"shape": [8, 8], "layout": "(8, 8)"}},
        "ops": [{"op": "matmul", "operands": ["a", "w"], "result": "y"},
                {"op": "exp", "operands": ["y"], "result": "e"},
                {"op": "add", "operands": ["e", "y"], "result": "s"}],
        "outputs": ["s"]},
    "reduction over a sharded dim": {
        "mesh": "x=2,y=2",
        "inputs": {"a": {"shape": [8, 8], "layout": "(8 @ m.x, 8 @ m.y)"}},
        "ops": [{"op": "reduce", "operands": ["a"], "result": "s", "reduction": "sum", "axes": [1]},
                {"op": "scale", "operands": ["s"], "result": "t", "constant": 3}],
        "outputs": ["t"]},
    "max over a sharded dim, then relu (monotone)": {
        "mesh": "x=4",
        "inputs": {"a": {"shape": [4, 8], "layout": "(4, 8 @ m.x)"}},
        "ops": [{"op": "reduce", "operands": ["a"], "result": "m", "reduction": "max", "axes": [1]},
                {"op": "relu", "operands": ["m"], "result": "r"}],
        "outputs": ["r"]},
    "transpose and reshape of a split": {
        "mesh": "x=2,y=2",
        "inputs": {"a": {"shape": [8, 4], "layout": "(8 @ m.x, 4 @ m.y)"}},
        "ops": [{"op": "transpose", "operands": ["a"], "result": "t", "perm": [1, 0]},
                {"op": "reshape", "operands": ["a"], "result": "f", "shape": [32]}],
        "outputs": ["t", "f"]},
}


# What each comparison must say, derived from spec/PROPAGATION.md for tfspec's side and, for XLA's,
# from what XLA's SPMD partitioner is documented to do (outputs are materialized: an unreduced
# value is all-reduced before it is returned; a reshape it cannot keep sharded is gathered). A
# change on either side shows up here as a failure to look at, not as a silent drift.
EXPECTED = {
    ("propagation/examples/mlp.json", "y"): "same",  # rows split on x pass through matmul (P1)
    ("propagation/examples/mlp.json", "z"): "same",
    ("propagation/examples/partial_relu.json", "y"): "tfspec conflict",  # relu of Partial(sum) (P3); XLA all-reduces first
    ("propagation/examples/partial_relu.json", "z"): "same",
    ("tensor-parallel MLP (Megatron: column- then row-parallel, batch on x)", "h"): "same",
    ("tensor-parallel MLP (Megatron: column- then row-parallel, batch on x)", "r"): "same",
    ("tensor-parallel MLP (Megatron: column- then row-parallel, batch on x)", "o"): "Partial kept",  # k split on y (P2)
    ("data-parallel batch (weights replicated)", "y"): "same",
    ("data-parallel batch (weights replicated)", "e"): "same",
    ("data-parallel batch (weights replicated)", "s"): "same",
    ("reduction over a sharded dim", "s"): "Partial kept",  # reduce over the y-split dim (P2)
    ("reduction over a sharded dim", "t"): "Partial kept",  # scale is linear (P2 table)
    ("max over a sharded dim, then relu (monotone)", "m"): "Partial kept",  # P(max) (P2)
    ("max over a sharded dim, then relu (monotone)", "r"): "Partial kept",  # relu is monotone (P3)
    ("transpose and reshape of a split", "t"): "same",
    ("transpose and reshape of a split", "f"): "differs",  # tfspec keeps both splits (P6); XLA gathers y
}


def run(cli, *argv, stdin=None):
    r = subprocess.run([cli, *argv], capture_output=True, text=True, input=stdin)
    return r.returncode, r.stdout, r.stderr


def jax_op(op, args):
    kind = op["op"]
    if kind == "matmul":
        return jnp.matmul(*args)
    if kind == "relu":
        return jax.nn.relu(args[0])
    if kind == "exp":
        return jnp.exp(args[0])
    if kind == "neg":
        return -args[0]
    if kind == "scale":
        return op["constant"] * args[0]
    if kind in ("add", "sub", "mul", "max"):
        return {"add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "max": jnp.maximum}[kind](*args)
    if kind == "reduce":
        return {"sum": jnp.sum, "max": jnp.max, "min": jnp.min}[op["reduction"]](args[0], axis=tuple(op["axes"]))
    if kind == "transpose":
        return jnp.transpose(args[0], op["perm"])
    if kind == "reshape":
        return jnp.reshape(args[0], op["shape"])
    if kind == "broadcast_in_dim":
        return jax.lax.broadcast_in_dim(args[0], op["shape"], op["dims"])
    if kind == "slice":
        return jax.lax.slice(args[0], op["start"], op["limit"])
    if kind == "concat":
        return jnp.concatenate(args, axis=op["dim"])
    raise ValueError(f"no JAX form for {kind}")


def layout_to_jax(cli, layout, shape):
    """(mesh axes, device ids, PartitionSpec) of a sugar layout, by `tfspec shard to-jax`."""
    shape_text = "(" + ",".join(map(str, shape)) + ")"
    rc, out, err = run(cli, "shard", "canon", layout)
    if rc != 0:
        raise RuntimeError(f"canon {layout}: {err.strip()}")
    rc, out, err = run(cli, "shard", "to-jax", out.strip().splitlines()[-1], shape_text)
    if rc != 0:
        raise RuntimeError(f"to-jax {layout}: {err.strip()}")
    lines = out.strip().splitlines()
    axes = [(a.split("=")[0], int(a.split("=")[1])) for a in lines[0].split()[1].split(",")]
    ids = [int(v) for v in lines[1].split()[1].split(",")]
    return axes, ids, eval(lines[-1], {"P": P})


def owners(cli, shard, shape):
    rc, out, err = run(cli, "shard", "owners", shard, "(" + ",".join(map(str, shape)) + ")", "--json")
    if rc != 0:
        return None, err.strip()
    return {d["device"]: (d["elements"], d["partial"]) for d in json.loads(out)["devices"]}, None


def compare(cli, name, prog):
    mesh_text = prog["mesh"]
    rc, out, err = run(cli, "propagate", "-", "--json", stdin=json.dumps(prog))
    if rc not in (0, 1):
        return None, f"tfspec propagate failed: {err.strip()}"
    ours = json.loads(out)
    conflicts = {c.get("value") or c.get("result") for c in ours.get("conflicts", [])}
    # The inputs as JAX arrays on the mesh tfspec's to-jax names (one mesh for every input).
    mesh = None
    shardings, arrays = [], []
    for iname, inp in prog["inputs"].items():
        layout = inp["layout"] + " on " + mesh_text if " on " not in inp["layout"] else inp["layout"]
        axes, ids, spec = layout_to_jax(cli, layout, inp["shape"])
        if mesh is None:
            devs = np.array(jax.devices()[: len(ids)], dtype=object)[np.array(ids)].reshape([e for _, e in axes])
            mesh = Mesh(devs, tuple(n for n, _ in axes))
        shardings.append(NamedSharding(mesh, spec))
        arrays.append(np.arange(int(np.prod(inp["shape"])), dtype=np.float32).reshape(inp["shape"]))
    names = list(prog["inputs"])
    results = [op["result"] for op in prog["ops"]]

    def f(*xs):
        env = dict(zip(names, xs))
        for op in prog["ops"]:
            env[op["result"]] = jax_op(op, [env[o] for o in op["operands"]])
        return tuple(env[r] for r in results)

    compiled = jax.jit(f, in_shardings=tuple(shardings)).lower(*[jax.device_put(a, s) for a, s in zip(arrays, shardings)]).compile()
    hlo = compiled.as_text()
    collectives = sorted({m for m in re.findall(r"\b(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)\b", hlo)})
    rows = []
    for r, xs in zip(results, compiled.output_shardings):
        shape = ours["values"][r]["shape"] if r in ours["values"] else None
        if r in conflicts or r not in ours["values"]:
            rows.append((r, "(conflict)", str(xs.spec), "tfspec conflict"))
            continue
        mine = ours["values"][r]
        theirs_text = None
        jspec = repr(xs.spec) if isinstance(xs, NamedSharding) else None
        if jspec is not None:
            ids = ",".join(str(d.id) for d in np.asarray(mesh.devices).ravel())
            mtext = ",".join(f"{n}={e}" for n, e in zip(mesh.axis_names, mesh.devices.shape))
            rc, out, err = run(cli, "shard", "from-jax", "--mesh", mtext, "--spec", jspec, "--shape", "(" + ",".join(map(str, shape)) + ")", "--devices", ids)
            theirs_text = out.strip().splitlines()[-1] if rc == 0 else None
        a, _ = owners(cli, mine["shard"], shape)
        b, _ = owners(cli, theirs_text, shape) if theirs_text else (None, None)
        partial = a is not None and any(p for _, p in a.values())
        if partial:
            verdict = "Partial kept by tfspec; XLA reduced it (" + (", ".join(c for c in collectives if c in ("all-reduce", "reduce-scatter")) or "no reduction seen") + ")"
        elif a is not None and b is not None and {d: e for d, (e, _) in a.items()} == {d: e for d, (e, _) in b.items()}:
            verdict = "same"
        else:
            verdict = "differs"
        rows.append((r, mine["layout"], jspec or str(xs), verdict))
    return {"rows": rows, "collectives": collectives, "tfspec_reshards": len(ours.get("reshards", [])),
            "tfspec_conflicts": [c.get("rule") for c in ours.get("conflicts", [])]}, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tfspec", required=True)
    args = ap.parse_args()
    programs = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "propagation", "examples", "*.json"))):
        with open(path) as f:
            programs["propagation/examples/" + os.path.basename(path)] = json.load(f)
    programs.update(PROGRAMS)
    broken = 0
    print(f"jax {jax.__version__}")
    for name, prog in programs.items():
        res, err = compare(args.tfspec, name, prog)
        if err:
            print(f"## {name}\n  could not compare: {err}")
            broken += 1
            continue
        print(f"## {name}")
        print(f"  XLA's collectives: {', '.join(res['collectives']) or 'none'}; tfspec: {res['tfspec_reshards']} reshards, "
              f"conflicts {res['tfspec_conflicts'] or 'none'}")
        for value, mine, theirs, verdict in res["rows"]:
            print(f"  {value}: tfspec {mine} | XLA {theirs} | {verdict}")
            want = EXPECTED.get((name, value))
            if want is not None and not verdict.startswith(want):
                print(f"  FAIL {value}: expected '{want}'")
                broken += 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
