#!/usr/bin/env python3
"""Reshard differential against PyTorch DTensor's `redistribute` on a real process group (issue 33;
spec/SHARD.md I2-I5, §7.4): 4 processes on the CPU `gloo` backend, a 1-D mesh of 4 or a 2x2 mesh.

For each seeded case every rank builds its SRC local tensor (Shard / Replicate / Partial("sum")
placements; a Partial's contributions are arbitrary integers, one global tensor per coordinate on
the Partial mesh dims, cut the way DTensor cuts: `torch.chunk` in mesh-dim order), wraps it with
`DTensor.from_local`, calls `redistribute` to the DST placements, and rank 0 gathers every rank's
SRC and DST locals. Then tfspec, independently of torch:
  * `shard from-dtensor` reads both placements as ShardLayouts (device = rank);
  * `shard assemble` of the SRC locals must give the sum of the contributions (the logical value
    X, computed here in Python);
  * `shard assemble` of DTensor's DST locals must give X too (DTensor moved the data right);
  * where DST has no Partial, DTensor's DST locals must equal `shard distribute` of X onto DST,
    buffer for buffer (the reference's reshard of the same data);
  * `reshard-plan`'s lower bound for the pair is reported beside DTensor's collectives
    (CommDebugMode's counts), so the two can be compared.
Without torch (or gloo) this prints why and exits 77 (skipped).

    python3 python/tests/dtensor_redistribute.py --tfspec build/cli/tfspec --cases 60 --seed 1
"""
import argparse
import itertools
import json
import os
import random
import socket
import subprocess
import sys
import tempfile

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor.placement_types import Partial, Replicate, Shard
    from torch.distributed.tensor.debug import CommDebugMode
except ImportError as e:
    print(f"skipped: torch with torch.distributed's DTensor is not importable by {sys.executable} ({e}); "
          f"install it with `{sys.executable} -m pip install torch` (large) to run the redistribute differential")
    sys.exit(77)

WORLD = 4


def placement_text(p):
    kind = type(p).__name__
    if kind == "Shard":
        return f"Shard({p.dim})"
    if kind == "Replicate":
        return "Replicate()"
    return "Partial('sum')"


def random_case(rng):
    ext = rng.choice([[4], [2, 2]])
    rank = rng.randint(1, 2)
    shape = [4 * rng.randint(1, 3) for _ in range(rank)]  # even under every split of 4 or 2x2

    def placements(allow_partial):
        out = []
        for _ in ext:
            r = rng.random()
            if r < 0.45:
                out.append(Shard(rng.randrange(rank)))
            elif r < 0.7 or not allow_partial:
                out.append(Replicate())
            else:
                out.append(Partial("sum"))
        return out

    return ext, shape, placements(True), placements(True)


def cut(t, ext, placements, coord):
    """The local piece DTensor keeps at a mesh coordinate: torch.chunk along each Shard's dim, in
    mesh-dim order (Replicate and Partial keep the whole)."""
    for mesh_dim, p in enumerate(placements):
        if isinstance(p, Shard):
            t = torch.chunk(t, ext[mesh_dim], p.dim)[coord[mesh_dim]]
    return t.contiguous()


def contributions(seed, case, ext, shape, placements):
    """{coordinates on the Partial mesh dims: a global tensor}; without a Partial, one tensor."""
    partial_dims = [d for d, p in enumerate(placements) if isinstance(p, Partial)]
    g = torch.Generator().manual_seed(seed * 100003 + case)
    out = {}
    for pc in itertools.product(*[range(ext[d]) for d in partial_dims]):
        out[pc] = torch.randint(-50, 50, shape, generator=g, dtype=torch.int64)
    return partial_dims, out


def dtensor_bytes(src_spec, dst_spec, ext, elem_bytes=8):
    """The bytes DTensor's redistribute moves, from its own transform steps (torch's
    `_gen_transform_infos`: per step a mesh dim, the placement pair and the logical shape on that
    dim), priced by spec/MULTIGPU.md's ring model: all-gather and reduce-scatter move (n-1)/n of the
    logical numel per rank, all-reduce 2(n-1)/n, all-to-all (n-1)/n of the local numel. None when
    the private API is not there."""
    try:
        from torch.distributed.tensor._redistribute import _gen_transform_infos
        infos = _gen_transform_infos(src_spec, dst_spec)
    except Exception:  # a private API: other torch versions may lack it
        return None
    total = 0
    for info in infos:
        n = ext[info.mesh_dim]
        numel = 1
        for e in info.logical_shape:
            numel *= int(e)
        key = info._comm_type_key() if hasattr(info, "_comm_type_key") else None
        groups = WORLD // n
        if key in ("all_gather", "reduce_scatter"):
            total += groups * (n - 1) * numel  # n ranks each send (n-1) blocks of numel / n
        elif key == "all_reduce":
            total += groups * 2 * (n - 1) * numel
        elif key == "all_to_all":
            total += groups * (n - 1) * numel // n  # n ranks each send (n-1)/n of numel / n
    return total * elem_bytes


def worker(rank, args, port, out_path):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    rng = random.Random(args.seed)
    results = []
    for case in range(args.cases):
        ext, shape, src, dst = random_case(rng)
        mesh = init_device_mesh("cpu", tuple(ext), mesh_dim_names=tuple("xy"[: len(ext)]))
        coord = [int(c) for c in mesh.get_coordinate()]
        partial_dims, parts = contributions(args.seed, case, ext, shape, src)
        mine = parts[tuple(coord[d] for d in partial_dims)]
        local = cut(mine, ext, src, coord)
        x = DTensor.from_local(local, mesh, src, run_check=False, shape=torch.Size(shape), stride=mine.stride())
        try:
            with CommDebugMode() as comm:
                y = x.redistribute(mesh, dst)
        except RuntimeError as e:  # DTensor refuses some pairs (e.g. Replicate -> Partial), on every rank alike
            if rank == 0:
                results.append({"ext": ext, "shape": shape, "src": [placement_text(p) for p in src],
                                "dst": [placement_text(p) for p in dst], "refused": str(e).splitlines()[0]})
            continue
        counts = {str(k).split(".")[-1]: v for k, v in comm.get_comm_counts().items() if v}
        moved = dtensor_bytes(x._spec, y._spec, ext)
        gathered = [None] * WORLD
        dist.all_gather_object(gathered, {"src": local.reshape(-1).tolist(), "dst": y.to_local().contiguous().reshape(-1).tolist()})
        if rank == 0:
            value = sum(parts.values()).reshape(-1).tolist()
            results.append({"ext": ext, "shape": shape, "src": [placement_text(p) for p in src],
                            "dst": [placement_text(p) for p in dst], "value": value, "locals": gathered, "comm": counts,
                            "dtensor_bytes": moved})
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(results, f)
    dist.destroy_process_group()


def tfspec(cli, *argv):
    r = subprocess.run([cli, *argv], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def check_case(cli, c):
    mesh = ",".join(map(str, c["ext"]))
    shape = "(" + ",".join(map(str, c["shape"])) + ")"
    layouts = {}
    for side in ("src", "dst"):
        rc, out, err = tfspec(cli, "shard", "from-dtensor", "--mesh", mesh, "--placements", ", ".join(c[side]), "--shape", shape)
        if rc != 0:
            return "fail", f"from-dtensor {c[side]}: {err.strip()}"
        layouts[side] = out.strip().splitlines()[-1]

    def assemble(side):
        engines = {"storage": "rmem", "buffers": {str(r): c["locals"][r][side] for r in range(WORLD)}}
        rc, out, err = tfspec(cli, "shard", "assemble", layouts[side], shape, json.dumps(engines), "--json")
        if rc != 0:
            return None, err.strip()
        return json.loads(out)["data"], None

    for side in ("src", "dst"):
        got, err = assemble(side)
        if err:
            return "fail", f"assemble {side} ({layouts[side]}): {err}"
        if got != c["value"]:
            return "fail", f"{side} {c[side]} assembles to {got[:8]}..., the contributions sum to {c['value'][:8]}..."
    if not any(p.startswith("Partial") for p in c["dst"]):
        data = "(" + ",".join(map(str, c["value"])) + ")"  # the data as a tuple (CLI11 splits a JSON array argument)
        rc, out, err = tfspec(cli, "shard", "distribute", layouts["dst"], shape, "rmem", data, "--json")
        if rc != 0:
            return "fail", f"distribute {layouts['dst']}: {err.strip()}"
        j = json.loads(out)
        buffers = j["buffers"]
        for r in range(WORLD):
            if buffers[str(r)] != c["locals"][r]["dst"]:
                return "fail", f"rank {r}: DTensor's DST local {c['locals'][r]['dst']} != the reference's {buffers[str(r)]}"
    rc, out, err = tfspec(cli, "reshard-plan", layouts["src"], layouts["dst"], shape, "--dtype", "int64", "--json")
    bound = json.loads(out)["lower_bound_bytes"] if rc == 0 else None
    return "agree", {"bound": bound, "comm": c["comm"], "plan": json.loads(out)["bytes"] if rc == 0 else None, "dtensor": c["dtensor_bytes"]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tfspec", required=True)
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not dist.is_available() or not dist.is_gloo_available():
        print("skipped: this torch has no gloo backend")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "cases.json")
        mp.spawn(worker, args=(args, free_port(), out_path), nprocs=WORLD, join=True)
        with open(out_path) as f:
            cases = json.load(f)
    tally, failures, rows = {}, [], []
    for c in cases:
        if "refused" in c:  # a pair DTensor does not redistribute: nothing to compare
            tally["dtensor-refuses"] = tally.get("dtensor-refuses", 0) + 1
            continue
        verdict, info = check_case(args.tfspec, c)
        tally[verdict] = tally.get(verdict, 0) + 1
        if verdict == "fail":
            failures.append(f"{c['src']} -> {c['dst']} on {c['ext']}, shape {c['shape']}: {info}")
        else:
            rows.append((c, info))
    print(f"torch {torch.__version__}, gloo, {WORLD} processes, seed {args.seed}, {len(cases)} cases: " +
          ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    # Bytes: DTensor's (its steps, ring-priced) against tfspec's plan and the lower bound.
    cmp = {"DTensor above the bound": 0, "DTensor at the bound": 0, "tfspec's plan below DTensor": 0, "DTensor below tfspec's plan": 0}
    for c, info in rows:
        if info["dtensor"] is None or info["bound"] is None:
            continue
        if info["dtensor"] < info["bound"]:
            failures.append(f"{c['src']} -> {c['dst']}: DTensor moves {info['dtensor']} B, below the lower bound {info['bound']} B")
        cmp["DTensor above the bound" if info["dtensor"] > info["bound"] else "DTensor at the bound"] += 1
        if info["plan"] < info["dtensor"]:
            cmp["tfspec's plan below DTensor"] += 1
        elif info["dtensor"] < info["plan"]:
            cmp["DTensor below tfspec's plan"] += 1
    print("bytes (int64, ring model): " + ", ".join(f"{k} {v}" for k, v in cmp.items()))
    if args.cases <= 80:
        for c, info in rows[:12]:
            print(f"  {', '.join(c['src'])} -> {', '.join(c['dst'])} on {c['ext']} {c['shape']}: DTensor {info['comm'] or 'no collective'} "
                  f"{info['dtensor']} B; tfspec plan {info['plan']} B, lower bound {info['bound']} B")
    for f in failures[:10]:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
