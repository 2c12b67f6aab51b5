#!/usr/bin/env python3
"""Writes conformance/results/triton-kernels.md: `tfspec kernel check --from triton` on every TTGIR
fixture (spec/TRITON.md), per kernel what was checked and found.

    python3 frontends/triton/tests/report.py --tfspec build/cli/tfspec > conformance/results/triton-kernels.md
"""
import argparse
import collections
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")

EXPLAINED = {
    "matmul_fp32_64x128x32_w4_s3.sm90": (
        "**Explained finding.** wgmma reads tf32 operands K-major only, so Triton stores the N-contiguous B "
        "(32 x 128, row-major in global memory) into a *transposed* `nvmma_shared` (K contiguous, 128-byte "
        "swizzle: one 128-byte row of 32 k per n, 16-byte groups XORed by n % 8), from a blocked layout where "
        "lane t holds n = 4t .. 4t+3 of one k. The async copy's access j writes n = 4t + j, so n % 8 is j or "
        "j + 4: two 16-byte groups, two banks for 32 lanes, 16-way. The global side is coalesced (128-bit "
        "loads); the conflict is the price of the transpose the instruction requires (a wider k per thread "
        "in the blocked layout would spread the lanes' groups; Triton does not choose one here)."),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfspec", required=True)
    args = ap.parse_args()
    names = sorted(f[:-6] for f in os.listdir(FIXTURES) if f.endswith(".ttgir"))
    with open(os.path.join(FIXTURES, "VERSION")) as f:
        version = f.read().strip()
    print("# Triton kernels checked from their TTGIR\n")
    print("`tfspec kernel check --from triton` ([spec/TRITON.md](../../spec/TRITON.md), "
          "[docs/kernels.md](../../docs/kernels.md#triton-kernels---from-triton)) on every fixture of "
          "`frontends/triton/tests/fixtures/` (" + version + ", compiled without a GPU by `regen.py`: the "
          "kernels of `kernels.py`, written after Triton's tutorials, for cuda:80 and cuda:90, with the "
          "`tt.divisibility` a launch gives). Regenerate this page with `python3 frontends/triton/tests/report.py "
          "--tfspec build/cli/tfspec`. Lines are grouped: `N x` counts the findings with the same outcome, check, "
          "location and message (the pipeliner's prologue and loop copies of one source line).\n")
    print("Not modelled (spec/TRITON.md §3): `ldmatrix`'s own phases (the generic per-thread vector model is used), "
          "the scratch layout of a `convert_layout` (its bytes are bounded by the tile), wgmma's shared-memory "
          "operands (read by descriptor; skipped, saying so), and the scratch of a `tt.reduce` across warps: "
          "softmax's and layer norm's metadata.shared (16 B with 4 warps, 32 B with 8) is one 4-byte partial "
          "result per warp, which the footprint line does not count. Every other kernel's footprint equals "
          "Triton's metadata.shared: the pipeline's buffers (or, without them, the largest convert scratch).\n")
    for name in names:
        r = subprocess.run([args.tfspec, "kernel", "check", "--from", "triton", os.path.join(FIXTURES, name + ".ttgir"), "--json"],
                           capture_output=True, text=True, check=False)
        rep = json.loads(r.stdout)
        with open(os.path.join(FIXTURES, name + ".json")) as f:
            meta = json.load(f)
        counts = collections.Counter(f["outcome"] for f in rep["findings"])
        print(f"## {name}\n")
        print(f"`{meta['kernel']}` for {meta['target']}, num_warps {meta['num_warps']}, num_stages {meta['num_stages']}, "
              f"metadata.shared {meta['shared']} B. Result: **{rep['result']}** (exit {r.returncode}; "
              + ", ".join(f"{n} {o}" for o, n in sorted(counts.items())) + ").\n")
        if name in EXPLAINED:
            print(EXPLAINED[name] + "\n")
        groups = collections.Counter((f["outcome"], f["check"], f.get("loc", ""), f["message"]) for f in rep["findings"])
        for (outcome, check, loc, message), n in groups.items():
            print(f"- {n} x {outcome} {check}" + (f" at `{loc}`" if loc else "") + f": {message}")
        print()


if __name__ == "__main__":
    main()
