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
    "attention_128x64x64_w4_s2.sm90": (
        "The second dot (P V) takes P from registers: on sm90 Triton converts the softmax's accumulator into "
        "`#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>` with a *version 3* mma parent, wgmma's register "
        "operand, laid out as mma.sync's A (spec/TRITON.md §2.4; equal to Triton's on the seeded cases). That "
        "convert (kernels.py line 95) moves no data: with kWidth 2 the accumulator's layout and the operand's are "
        "the same linear layout (registers k1, m8, k8, k16, k32, m64; lanes k2, k4, m1, m2, m4; warps m16, m32). Both "
        "dots read B (and the first also A) from shared memory by descriptor: each such operand is checked "
        "against wgmma's canonical atoms (spec/TRITON.md §3.3.1): Q and K K-major (head dim contiguous, 128-byte "
        "rows of 64 halves), V MN-major (its rows are k = the key index, n = the head dim contiguous)."),
    "tutorial_attn_fwd_128x64_d64_w4_s3.sm80": (
        "**The fused-attention tutorial's own kernel** (`_attn_fwd_tma` of triton-lang/triton's "
        "python/tutorials/06-fused-attention.py, compiled by `fixtures/tutorial_attention.py` from the file; "
        "fp16, non-causal, HEAD_DIM 64, BLOCK_M 128, BLOCK_N 64, 4 warps, 3 stages; the file's sha256 in "
        "`fixtures/TUTORIAL`). On sm80 there is no TMA: Triton rewrites each descriptor load into a pointer "
        "load whose addresses are `row * desc.stride.0 + col * desc.stride.1` with both strides *runtime* "
        "values of the descriptor, so no dim is known to be contiguous, to Triton's axis analysis as to ours: "
        "Triton picks `#blocked` with one element a thread, lanes along the head dim (32 consecutive columns "
        "a warp: 64 bytes, two sectors, when the stride is 1 at run time), and tfspec skips the global check, "
        "saying why. The same one-element layout stores Q and V into shared memory (16-bit stores, conflict-free: "
        "32 lanes write 32 consecutive halves of one row, 16 banks). K goes through a convert_layout into the "
        "transposed layout `tt.trans` needs (across warps: through shared memory); the dots' operands are read "
        "by ldmatrix, conflict-free under the 64-halves rows' `vec = 8, maxPhase = 8` swizzle. `tt.reshape` and "
        "`tt.trans` are listed as not read (they move no data here)."),
    "tutorial_attn_fwd_128x64_d64_w4_s3.sm90": (
        "**The fused-attention tutorial's own kernel** on sm90: Q, K and V arrive by TMA "
        "(`ttng.async_tma_copy_global_to_local`, with mbarriers: listed as not read, TMA is not modelled here) "
        "into 128-byte swizzled `nvmma_shared` buffers (Q 128 x 64, K and V 3 stages of 64 x 64); K is read "
        "through `ttg.memdesc_trans` (listed) as a transposed nvmma_shared. Both wgmma operand checks hold: Q "
        "and K^T K-major 128-byte (head dim contiguous, 64 halves = 128 bytes), V MN-major 128-byte. "
        "**Footprint, explained:** the allocations total 81976 B = Q 16384 + K 24576 + V 24576 + the epilogue's "
        "output staging 16384 + barriers 8 + 2 x 24. By liveness (spec/TRITON.md §3.5) the output staging "
        "(line 190) is written after the loop, when the K/V ring is dead, and Q's barrier (line 70) is "
        "invalidated (line 75) before the ring's barriers are made: at most 65584 B are live at once. Triton "
        "allocated 65592 B: its placement at fixed offsets leaves Q's dead barrier's 8 bytes unused (a peak of "
        "live bytes is a lower bound of any placement); the check compares the larger of the two with the limit."),
    "matmul_colsum_64x64x32_w4_s3.sm80": (
        "**Explained finding.** A's columns are summed inside the matmul's loop, so A's pipelined buffer has "
        "two readers: the mma operand's ldmatrix and a blocked `local_load` feeding the `tt.reduce`. Triton "
        "gives that buffer no swizzle (`swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1}>`, B keeps its "
        "`maxPhase = 8`): A's rows are 32 halves, 64 bytes, so an ldmatrix phase's eight rows r sit in the "
        "16-byte slot (4 r + c) % 8 and rows 0, 2, 4, 6 share one: 4-way, min(8, 64 / 16), at every A operand "
        "load (line 110, prologue and loop), the same degree the planted `maxPhase = 1` gives. The reduction "
        "crosses the 4 warps that split A's rows: its scratch, 256 B (spec/TRITON.md §3.5.1), is live beside "
        "A's and B's two buffers (16384 B): 16640 B, Triton's metadata.shared. The loop's async copies build "
        "their address from the induction variable, a multiple of 32 (gcd of the bounds and step, §3.4): "
        "128-bit, as in the PTX."),
    "matmul_fp32_64x128x32_w4_s3.sm90": (
        "**Explained finding.** wgmma reads tf32 operands K-major only, so Triton stores the N-contiguous B "
        "(32 x 128, row-major in global memory) into a *transposed* `nvmma_shared` (K contiguous, 128-byte "
        "swizzle: one 128-byte row of 32 k per n, 16-byte groups XORed by n % 8), from a blocked layout where "
        "lane t holds n = 4t .. 4t+3 of one k. The async copy's access j writes n = 4t + j, so n % 8 is j or "
        "j + 4: two 16-byte groups, two banks for 32 lanes, 16-way. The same transpose bounds the global "
        "side: a cp.async writes one vector to consecutive shared addresses, and the transposed buffer keeps "
        "one f32 of a thread's n run together, so each copy is 32-bit: access j reads n = 4t + j of one k "
        "row, 32 words 16 bytes apart over 512 bytes, 16 sectors for 128 bytes (4 ideal): 512 sectors for "
        "128 per warp (spec/TRITON.md §3.4's destination run). Both are the price of the transpose the "
        "instruction requires (a wider k per thread in the blocked layout would spread the lanes' groups "
        "and let each copy carry k-contiguous words; Triton does not choose one here)."),
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
          "kernels of `kernels.py`, written after Triton's tutorials, and the fused-attention tutorial's own "
          "forward kernel compiled from its file by `tutorial_attention.py`, for cuda:80 and cuda:90, with the "
          "`tt.divisibility` a launch gives). Regenerate this page with `python3 frontends/triton/tests/report.py "
          "--tfspec build/cli/tfspec`. Lines are grouped: `N x` counts the findings with the same outcome, check, "
          "location and message (the pipeliner's prologue and loop copies of one source line).\n")
    print("Modelled since the first publication: `ldmatrix` phases for local_loads into mma operands (8 rows of "
          "16 bytes a phase, spec/TRITON.md §3.1.1), wgmma's shared-memory operands against the descriptor's "
          "canonical atoms (§3.3.1), every warp's sectors (§3.4), memdesc_subslice origins, and the scratch "
          "Triton 3.9 builds for a `convert_layout` across warps (§3.2.1: its bytes, rounds, the instructions "
          "that move it, and the store's and load's vectors and wavefronts), and, within a warp, Triton's choice "
          "between warp shuffles and that scratch (§3.2). Not modelled (spec/TRITON.md §3): TMA copies and "
          "barriers (listed as not read). The footprint is the most bytes live at once (each buffer from its "
          "allocation to its last use, a convert's or a `tt.reduce`'s scratch at its op): equal to Triton's in "
          "every kernel below but the tutorial's sm90 one (8 bytes under, explained there). Since issue 48's "
          "reduce work, a `tt.reduce` is a finding of its own (check `reduce`), with the scratch Triton takes "
          "when its axis spans several warps (§3.5.1: softmax's and layer norm's 16 B with 4 warps, one 4-byte "
          "partial result a warp), which the footprint counts. Since the kernel sweep "
          "(`kernel_sweep.py`, spec/TRITON.md §4): masks cap global vectors (§3.4.1), rows under 32 bytes take "
          "one sector each, ldmatrix is modelled for 8- and 32-bit elements and names `.trans`, wgmma's A in "
          "registers is checked against the instruction's fragment (§3.3.2), wgmma's warps walk m first, and "
          "every finding carries `loc` (the footprint the kernel's own line).\n")
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
