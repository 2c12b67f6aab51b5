#!/usr/bin/env python3
"""Ownership differential against PyTorch DTensor's own splitting code (issue 33; spec/SHARD.md
I2-I5). Run against torch 2.15 on 2026-12-02 (conformance/results/dtensor.md: 2,300 cases, no
disagreement); torch is large and CI does not install it: without torch this prints why and exits
77 (skipped).

No process group is needed: DTensor places a tensor by applying its placements in mesh-dim order,
each Shard / _StridedShard cutting the local tensor with its `_split_tensor` and the rank keeping
the piece of its coordinate on that mesh dim (`Shard._shard_tensor` / `_select_split_tensor`).
This test does the same with torch's own `_split_tensor` on a tensor of row-major indices, for
every mesh coordinate, and compares each rank's index set with `tfspec shard from-dtensor` +
`tfspec shard owners`. The rank of a coordinate is `mesh[coord]` (DeviceMesh's tensor of ranks,
here `arange`; permuted orders are the JAX differential's). An uneven case (torch.chunk's short or empty trailing pieces) must
be refused by tfspec (`import-uneven`), as must `Partial("avg")` (`import-partial-reduction`).

    python3 python/tests/dtensor_differential.py --tfspec build/cli/tfspec --cases 300 --seed 1
"""
import argparse
import itertools
import json
import os
import random
import subprocess
import sys

try:
    import torch
    try:
        from torch.distributed.tensor.placement_types import Partial, Replicate, Shard, _StridedShard
    except ImportError:  # torch < 2.5
        from torch.distributed._tensor.placement_types import Partial, Replicate, Shard, _StridedShard
except ImportError as e:
    print(f"skipped: torch (with torch.distributed's DTensor placements) is not importable by {sys.executable} ({e}); "
          f"install it with `{sys.executable} -m pip install torch` (large) to run the DTensor differential")
    sys.exit(77)


def strided(dim, sf):
    try:
        return _StridedShard(dim, split_factor=sf)
    except TypeError:  # the dataclass form (kw_only)
        return _StridedShard(dim=dim, split_factor=sf)


def placement_text(p):
    kind = type(p).__name__
    if kind == "_StridedShard":
        return f"_StridedShard({p.dim}, split_factor={p.split_factor})"
    if kind == "Shard":
        return f"Shard({p.dim})"
    if kind == "Replicate":
        return "Replicate()"
    return f"Partial({str(p.reduce_op)!r})"


def random_case(rng):
    while True:
        ext = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        n = 1
        for e in ext:
            n *= e
        if n <= 8:
            break
    rank = rng.randint(1, 3)
    shape = [rng.choice([1, 2, 3, 4, 6, 8, 12, 16]) for _ in range(rank)]
    placements = []
    for e in ext:
        r = rng.random()
        d = rng.randrange(rank)
        if r < 0.45:
            placements.append(Shard(d))
        elif r < 0.6:
            placements.append(strided(d, rng.choice([2, 3])))
        elif r < 0.85:
            placements.append(Replicate())
        else:
            placements.append(Partial(rng.choice(["sum", "sum", "max", "min", "avg"])))
    ranks = list(range(n))  # DeviceMesh(type, torch.arange(n).reshape(ext)); orders: the JAX differential
    return ext, ranks, shape, placements


def torch_pieces(ext, shape, placements):
    """{mesh coordinate: sorted row-major indices} by torch's own splitting, or None when a split
    is uneven (a piece shorter than another, or empty)."""
    full = torch.arange(int(torch.tensor(shape).prod())).reshape(shape)
    out = {}
    for coord in itertools.product(*[range(e) for e in ext]):
        local = full
        for mesh_dim, p in enumerate(placements):
            if type(p).__name__ in ("Shard", "_StridedShard"):
                n, sf = ext[mesh_dim], getattr(p, "split_factor", 1)
                # uneven: torch.chunk's pieces differ (a _StridedShard's first cut into sf pieces too)
                first = torch.chunk(local, sf, p.dim) if n > 1 else [local]
                if len(first) != (sf if n > 1 else 1) or len({t.size(p.dim) for t in first}) != 1:
                    return None
                pieces, _ = p._split_tensor(local, n, with_padding=False, contiguous=True)
                if len({t.size(p.dim) for t in pieces}) != 1 or pieces[0].size(p.dim) == 0:
                    return None
                local = pieces[coord[mesh_dim]]
        out[coord] = sorted(int(v) for v in local.reshape(-1).tolist())
    return out


def check(cli, rng):
    ext, ranks, shape, placements = random_case(rng)
    mesh_text = ",".join(str(e) for e in ext)
    text = ", ".join(placement_text(p) for p in placements)
    shape_text = "(" + ",".join(map(str, shape)) + ")"
    argv = [cli, "shard", "from-dtensor", "--mesh", mesh_text, "--placements", text, "--shape", shape_text,
            "--devices", ",".join(map(str, ranks))]
    r = subprocess.run(argv, capture_output=True, text=True)
    if any(type(p).__name__ == "Partial" and str(p.reduce_op) == "avg" for p in placements):
        # tfspec reads placements in mesh-dim order and stops at the first refusal
        ok = r.returncode == 3 and any(k in r.stderr for k in ("import-partial-reduction", "import-uneven", "import-not-expressible"))
        return ("refused-avg" if ok else "fail"), None if ok else f"avg not refused: {r.stdout}{r.stderr}\n  {argv}"
    ops = {str(p.reduce_op) for p in placements if type(p).__name__ == "Partial"}
    if len(ops) > 1:
        # Partials with different reduce ops on one tensor: DTensor refuses them, and so must
        # tfspec (spec/SHARD.md I4, issue 44), unless an earlier placement is refused first
        ok = r.returncode == 3 and any(k in r.stderr for k in ("import-partial-reduction", "import-uneven", "import-not-expressible"))
        return ("refused-mixed-partials" if ok else "fail"), None if ok else f"mixed Partials not refused: {r.stdout}{r.stderr}\n  {argv}"
    theirs = torch_pieces(ext, shape, placements)
    if theirs is None:
        ok = r.returncode == 3 and ("import-uneven" in r.stderr or "import-not-expressible" in r.stderr)
        return ("refused-uneven" if ok else "fail"), None if ok else f"uneven not refused: {r.stdout}{r.stderr}\n  {argv}"
    if r.returncode == 3 and "import-not-expressible" in r.stderr:
        return "refused-not-expressible", None  # a _StridedShard straddling another split (I5)
    if r.returncode != 0:
        return "fail", f"tfspec refused an even case: {r.stderr}\n  {argv}"
    layout = r.stdout.strip().splitlines()[-1]
    o = subprocess.run([cli, "shard", "owners", layout, shape_text, "--json"], capture_output=True, text=True)
    if o.returncode != 0:
        return "fail", f"owners refused {layout}: {o.stderr}"
    ours = {d["device"]: d["elements"] for d in json.loads(o.stdout)["devices"]}
    flat_ranks = {coord: ranks[i] for i, coord in enumerate(itertools.product(*[range(e) for e in ext]))}
    for coord, elems in theirs.items():
        if ours.get(flat_ranks[coord]) != elems:
            return "fail", f"rank {flat_ranks[coord]} at {coord}: torch {elems}, tfspec {ours.get(flat_ranks[coord])}\n  {argv}"
    return "agree", None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfspec", default=os.environ.get("TFSPEC_CLI", "build/cli/tfspec"))
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    counts, failures = {}, []
    for i in range(a.cases):
        verdict, why = check(a.tfspec, rng)
        counts[verdict] = counts.get(verdict, 0) + 1
        if why:
            failures.append(f"case {i}: {why}")
    print(f"torch {torch.__version__}, seed {a.seed}, {a.cases} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for f in failures[:20]:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
