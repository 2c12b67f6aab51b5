"""A DTensor DeviceMesh and placements read by tfspec, each rank's block checked against torch's
own local shape and global offset (README, docs/imports.md). Needs torch; no GPU, no real
process group (torch's in-process "fake" backend only gives the DeviceMesh its 8 ranks).

    python3 docs/examples/dtensor_owners.py   # tfspec: the TFSPEC environment variable, else on PATH
"""
import itertools
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.distributed.device_mesh import DeviceMesh  # noqa: E402
from torch.distributed.tensor import Replicate, Shard  # noqa: E402
from torch.distributed.tensor._utils import _compute_local_shape_and_global_offset  # noqa: E402
from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: E402

import tfspec.peers  # noqa: E402  (pure Python: the arguments of `shard from-dtensor`)

dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=8)
cli = os.environ.get("TFSPEC", "tfspec")
shape = (8, 16)
mesh = DeviceMesh("cpu", torch.arange(8).reshape(2, 4), mesh_dim_names=("x", "y"))
placements = [Shard(1), Replicate()]
args = tfspec.peers.dtensor_args(mesh, placements, shape)
out = subprocess.run([cli, "shard", "from-dtensor", "--mesh", args["mesh"], "--placements", args["placements"],
                      "--shape", args["shape"], "--devices", args["devices"]], capture_output=True, text=True, check=True).stdout
layout = out.strip().splitlines()[-1]
print(layout)
owners = json.loads(subprocess.run([cli, "shard", "owners", layout, args["shape"], "--json"],
                                   capture_output=True, text=True, check=True).stdout)
for coord in itertools.product(range(2), range(4)):
    local, offset = _compute_local_shape_and_global_offset(shape, (2, 4), list(coord), placements)
    block = sorted(r * shape[1] + c for r in range(offset[0], offset[0] + local[0]) for c in range(offset[1], offset[1] + local[1]))
    rank = int(mesh.mesh[coord])
    assert next(d for d in owners["devices"] if d["device"] == rank)["elements"] == block, (rank, block)
print("8 ranks: each holds the block torch's local shape and offset name; ranks 0-3 columns 0-7, 4-7 columns 8-15")
dist.destroy_process_group()
