"""A JAX NamedSharding read by tfspec, each device's elements checked against JAX's own
devices_indices_map (README, docs/imports.md). Needs jax; uses 8 host-platform CPU devices.

    python3 docs/examples/jax_owners.py       # tfspec: the TFSPEC environment variable, else on PATH
"""
import json
import os
import subprocess
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import tfspec.peers  # noqa: E402  (pure Python: the arguments of `shard from-jax`)

cli = os.environ.get("TFSPEC", "tfspec")
shape = (8,)
sharding = NamedSharding(Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y")), P(("y", "x")))
args = tfspec.peers.jax_args(sharding, shape)
out = subprocess.run([cli, "shard", "from-jax", "--mesh", args["mesh"], "--spec", args["spec"], "--shape", args["shape"],
                      "--devices", args["devices"]], capture_output=True, text=True, check=True).stdout
layout = out.strip().splitlines()[-1]
print(layout)
owners = json.loads(subprocess.run([cli, "shard", "owners", layout, args["shape"], "--json"],
                                   capture_output=True, text=True, check=True).stdout)
for dev, index in sharding.devices_indices_map(shape).items():
    jax_elements = list(range(*index[0].indices(shape[0])))
    ours = next(d for d in owners["devices"] if d["device"] == dev.id)
    assert ours["elements"] == jax_elements, (dev.id, ours, jax_elements)
    print("device %d holds %s (JAX: the same)" % (dev.id, ",".join(map(str, ours["elements"]))))
