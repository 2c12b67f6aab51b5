#!/usr/bin/env python3
"""Seeded random matmuls compiled by the installed Triton (no GPU): the width tfspec models for each
async copy's global read (spec/TRITON.md §3.4: the contiguity, the alignment, the registers and the
shared destination's run) against the widths of the cp.async instructions in Triton's own PTX. The
set of widths a kernel's async copies take must be the same; any other is a failure naming the
kernel. Without Triton it prints why and exits 77 (skipped).

    python3 frontends/triton/tests/cp_async_widths.py --tfspec build/cli/tfspec [--seed S] [--cases N]
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

CP_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared\.global(?:\.L2::\w+)?\s*\[[^\]]*\],\s*\[[^\]]*\],\s*(0x[0-9a-fA-F]+|\d+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfspec", required=True)
    ap.add_argument("--seed", type=int, default=20261205)
    ap.add_argument("--cases", type=int, default=24)
    a = ap.parse_args()
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except ImportError:
        print("skipped: triton is not importable (python3 -m pip install triton)")
        return 77
    import regen
    rng = random.Random(a.seed)
    compared, bad = 0, []
    with tempfile.TemporaryDirectory() as d:
        while compared < a.cases:
            bm, bn, bk = rng.choice([32, 64, 128]), rng.choice([32, 64, 128, 256]), rng.choice([16, 32, 64, 128])
            warps, stages = rng.choice([2, 4, 8]), rng.choice([2, 3, 4])
            at, bt = rng.choice([(False, False), (True, False), (False, True)])
            dtype, cap = rng.choice(["fp16", "bf16", "fp32", "fp8e4nv", "fp8e5"]), rng.choice([80, 90])
            name, fn, sig, cx, attrs, opts = regen.matmul_case(bm, bn, bk, warps, stages, a_t=at, b_t=bt, dtype=dtype)
            try:
                c = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cx, attrs=attrs), target=GPUTarget("cuda", cap, 32), options=opts)
            except Exception:  # Triton refuses the configuration (e.g. out of shared memory): no case
                continue
            ptx = sorted({int(x, 0) * 8 for x in CP_ASYNC.findall(c.asm["ptx"])})
            if not ptx:
                continue  # no cp.async (sm90's TMA path): nothing to compare
            path = os.path.join(d, f"{name}.sm{cap}")
            with open(path + ".ttgir", "w") as f:
                f.write(c.asm["ttgir"])
            with open(path + ".json", "w") as f:
                json.dump({"shared": c.metadata.shared, "target": f"cuda:{cap}", "num_warps": warps}, f)
            r = subprocess.run([a.tfspec, "kernel", "check", "--from", "triton", path + ".ttgir", "--json"], capture_output=True, text=True)
            report = json.loads(r.stdout)
            ours = sorted({f["detail"]["vector_bits"] for f in report["findings"]
                           if f["check"] == "global" and "async_copy" in f["subject"] and "vector_bits" in f.get("detail", {})})
            compared += 1
            if ours != ptx:
                bad.append(f"{name} sm{cap}: tfspec models {ours}-bit async copies, Triton's PTX has {ptx}")
    for b in bad:
        print("differs:", b)
    print(f"cp.async widths: {compared} kernels compared, {len(bad)} differ (seed {a.seed})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
