#!/usr/bin/env python3
"""A seeded random sweep of CUTLASS's CuTe DSL example kernels through
`tfspec kernel check --from cute-dsl` (issue 45, spec/CUTE_DSL.md "The sweep").

    python3 frontends/cute_dsl/tests/kernel_sweep.py --tfspec build/cli/tfspec \\
        [--cutlass DIR] [--seed S] [--draws N] [--verbose]

DIR is a CUTLASS checkout (or its examples/python/CuTeDSL folder); without --cutlass the
environment variable TFSPEC_CUTLASS_EXAMPLES names it. Nothing of CUTLASS is copied here: each
draw imports an example module from DIR and compiles its kernel, with the DSL, on fake tensors
(no GPU), at parameters drawn from the seed: ampere tensorop_gemm at random CTA tiles, atom
layouts, stages, element types and majorness of A, B and C; flash_attention_v2 at random head
dims, blocks and causality; elementwise_add; sgemm; the Hopper dense GEMM (sm_90a) at random
tiles. The dumped MLIR (CUTE_DSL_KEEP=ir-debug) is checked as the compiler wrote it, and again
with faults planted in its text:

- swizzle: an operand's shared-memory swizzle removed or weakened -> a `banks` violation at its
  ldmatrix read whose degree is what a hand model of the eight rows an ldmatrix phase reads gives
  (or ok where that model says the weaker swizzle still spreads them; Hopper: `kernel-tma-box`);
- stride: one stride of a static composition's result type changed -> `cute-dsl-layout-op` at
  that op's line;
- twice: a g2s copy's thread mode split so two threads write one element -> `coverage` at the
  copy's partition;
- padding: sgemm's padded shared memory (rows R + 4 apart) made unpadded -> a `banks` violation
  at each operand's g2s writes of the degree a hand model of warp 0's 32-bit writes gives;
- walk: a global copy's threads made to walk the strided dimension -> `kernel-coalescing` at that
  copy's partition wherever a warp-by-warp sector count (below, independent of tfspec's) says more
  sectors than ideal; where it says ideal, no coalescing violation.

On the compiler's own kernels no violation is allowed unless explained (a shared-memory footprint
past sm80's 164 KiB that the example's tile and stages imply). Configurations the DSL or the
example itself refuses are counted as rejected, not failures. Prints variants checked, faults
caught and failures; exit 1 on any failure, 77 (skipped, with the reason) where the DSL or the
examples are absent.
"""
import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

SKIP = 77
SM80_SMEM = 164 * 1024  # bytes a CTA may use on sm80 (CUDA's sm_80 limit)


# ---------------------------------------------------------------- CuTe layout strings (our parser)

def parse_tuple(s):
    """'((4,32),8)' -> nested tuples of ints; '?..' leaves stay strings."""
    pos = 0

    def item():
        nonlocal pos
        if s[pos] == "(":
            pos += 1
            out = []
            while s[pos] != ")":
                out.append(item())
                if s[pos] == ",":
                    pos += 1
            pos += 1
            return tuple(out)
        m = re.compile(r"-?\d+|\?(\{[^}]*\})?").match(s, pos)
        pos = m.end()
        return int(m.group(0)) if m.group(0)[0] != "?" else m.group(0)
    return item()


def parse_layout(text):
    shape, stride = text.split(":", 1)
    return parse_tuple(shape), parse_tuple(stride)


def fmt(t):
    return "(" + ",".join(fmt(x) for x in t) + ")" if isinstance(t, tuple) else str(t)


def flat(t):
    return [y for x in t for y in flat(x)] if isinstance(t, tuple) else [t]


def size(t):
    return math.prod(flat(t))


def evaluate(shape, stride, i):
    """The layout at linear index i (colexicographic, CuTe's order)."""
    out = 0
    for s, d in zip(flat(shape), flat(stride)):
        out += (i % s) * d
        i //= s
    return out


# ---------------------------------------------------------------- the examples

def examples_root(arg):
    d = arg or os.environ.get("TFSPEC_CUTLASS_EXAMPLES", "")
    for root in (d, os.path.join(d, "examples", "python", "CuTeDSL")):
        if d and os.path.isfile(os.path.join(root, "cute", "ampere", "kernel", "dense_gemm", "tensorop_gemm.py")):
            return root
    return None


_modules = {}


def example(root, rel):
    if rel not in _modules:
        if root not in sys.path:
            sys.path.insert(0, root)
        spec = importlib.util.spec_from_file_location(os.path.basename(rel)[:-3], os.path.join(root, rel))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[rel] = mod
    return _modules[rel]


def draw_variant(rng):
    kind = rng.choices(["tensorop", "flash", "elementwise", "sgemm", "hopper"], weights=[10, 3, 1, 1, 2])[0]
    if kind == "tensorop":
        am, an = rng.choice([(1, 1), (1, 2), (2, 1), (2, 2), (2, 4), (4, 2), (4, 1), (1, 4), (4, 4)])
        return {"kind": kind, "atoms": (am, an, 1), "tile": (rng.choice([32, 64, 128, 256]), rng.choice([32, 64, 128, 256]), rng.choice([16, 32, 64])),
                "stages": rng.choice([3, 4, 5]), "dtype": rng.choice(["Float16", "BFloat16"]),
                "a": rng.choice("km"), "b": rng.choice("kn"), "c": rng.choice("nm")}
    if kind == "flash":
        return {"kind": kind, "head_dim": rng.choice([32, 64, 128]), "m_block": rng.choice([64, 128]), "n_block": rng.choice([64, 128]),
                "threads": rng.choice([128, 256]), "causal": rng.choice([False, True]), "dtype": rng.choice(["Float16", "BFloat16"])}
    if kind == "sgemm":
        return {"kind": kind, "tile": rng.choice([(128, 128, 8), (64, 64, 8), (128, 64, 8)]), "stages": rng.choice([2, 3, 4]), "threads": rng.choice([128, 256]),
                "a": rng.choice("km"), "b": rng.choice("kn")}
    if kind == "hopper":
        return {"kind": kind, "tile": rng.choice([(128, 128), (128, 256), (64, 128), (128, 64)])}
    return {"kind": kind}


class Rejected(Exception):
    """The example's own checks or the DSL refused the configuration."""


def compile_variant(root, v):
    """cute.compile of the variant's example kernel on fake tensors (as cutlass_examples.py does for
    the fixtures); returns the arguments' note for the report. Raises Rejected."""
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream

    def fake(dtype, shape, order):
        return make_fake_compact_tensor(dtype, shape, stride_order=order, assumed_align=16)
    stream = make_fake_stream()
    if v["kind"] == "tensorop":
        tg = example(root, "cute/ampere/kernel/dense_gemm/tensorop_gemm.py")
        dt = getattr(cutlass, v["dtype"])
        bm, bn, bk = v["tile"]
        am, an, _ = v["atoms"]
        # the example's constructor checks its own 128x128x32 tile; its conditions at ours
        # (C M-major computes C^T = B^T A^T with the atom layout's M and N swapped)
        pm, pn = (an, am) if v["c"] == "m" else (am, an)
        if bm % (pm * 16) or bn % (pn * 8) or bk % 16:
            raise Rejected("the example's own checks (tile not a multiple of the atoms' MMA tile)")
        gemm = tg.TensorOpGemm(dt, dt, cutlass.Float32, v["atoms"], v["c"] == "m")
        gemm.cta_tiler, (gemm.bM, gemm.bN, gemm.bK), gemm.num_stages = v["tile"], v["tile"], v["stages"]
        m, n, k = (cute.sym_int(divisibility=8) for _ in range(3))  # 16 bytes, the runner's divisibility
        l = cute.sym_int()
        a = fake(dt, (l, m, k), (2, 1, 0) if v["a"] == "k" else (2, 0, 1))
        b = fake(dt, (l, k, n), (2, 1, 0) if v["b"] == "n" else (2, 0, 1))
        c = fake(dt, (l, m, n), (2, 1, 0) if v["c"] == "n" else (2, 0, 1))
        cute.compile(tg.bmm, gemm, a, b, c, stream)
    elif v["kind"] == "flash":
        fa = example(root, "cute/ampere/kernel/attention/flash_attention_v2.py")
        dt = getattr(cutlass, v["dtype"])
        args = (v["head_dim"], v["m_block"], v["n_block"], v["threads"], v["causal"])
        if not fa.FlashAttentionForwardAmpere.can_implement(dt, *args):
            raise Rejected("the example's can_implement")
        b, sq, sk, h = (cute.sym_int() for _ in range(4))

        def t(s):
            return fake(dt, (b, s, h, v["head_dim"]), (3, 2, 1, 0))
        cute.compile(fa.FlashAttentionForwardAmpere(*args), t(sq), t(sk), t(sk), t(sq), 1.0, stream)
    elif v["kind"] == "elementwise":
        ea = example(root, "cute/ampere/kernel/elementwise/elementwise_add.py")
        f16 = cutlass.Float16
        m, n = cute.sym_int(), cute.sym_int(divisibility=8)
        cute.compile(ea.elementwise_add, fake(f16, (m, n), (1, 0)), fake(f16, (m, n), (1, 0)), fake(f16, (m, n), (1, 0)))
    elif v["kind"] == "sgemm":
        sg = example(root, "cute/ampere/kernel/dense_gemm/sgemm.py")
        f32 = cutlass.Float32
        # the contiguous mode's extent a multiple of 16 where it is M or N (the example's 128-bit
        # copies need its max_alignment % 16), of 4 where it is K (the runner's 16 bytes)
        m, n = cute.sym_int(divisibility=16), cute.sym_int(divisibility=16)
        k = cute.sym_int(divisibility=4) if "k" in (v.get("a", "k"), v.get("b", "k")) else cute.sym_int()
        cute.compile(sg.SGemm(v["tile"], v["stages"], v["threads"]), fake(f32, (m, k), (1, 0) if v.get("a", "k") == "k" else (0, 1)),
                     fake(f32, (n, k), (1, 0) if v.get("b", "k") == "k" else (0, 1)), fake(f32, (m, n), (1, 0)), stream=stream)
    elif v["kind"] == "hopper":
        hg = example(root, "cute/hopper/kernel/dense_gemm/dense_gemm.py")
        f16 = cutlass.Float16
        m, n, k, l = cute.sym_int(divisibility=8), cute.sym_int(divisibility=8), cute.sym_int(divisibility=8), cute.sym_int()
        a, b, c = fake(f16, (m, k, l), (1, 0, 2)), fake(f16, (n, k, l), (1, 0, 2)), fake(f16, (m, n, l), (1, 0, 2))
        cute.compile(hg.HopperWgmmaGemmKernel(cutlass.Float32, v["tile"], (1, 1)), a, b, c, stream)


def dump(root, v):
    """The variant's MLIR as the DSL dumps it (its environment manager set for this one compile,
    as tfspec.kernel.from_cute_dsl does), or raises Rejected."""
    dsl = importlib.import_module("cutlass.cutlass_dsl.cutlass").CuTeDSL
    envar = dsl._get_dsl().envar
    saved = (envar.keep_ir, envar.dump_dir, envar.arch)
    with tempfile.TemporaryDirectory() as d:
        envar.keep_ir, envar.dump_dir = True, d
        if v["kind"] == "hopper":
            envar.arch = "sm_90a"  # the DSL refuses wgmma on its default architecture
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                compile_variant(root, v)
        except Rejected:
            raise
        except Exception as e:  # the DSL's refusal of a configuration (its verifier or Python checks)
            raise Rejected("the DSL: " + (str(e).strip().split("\n")[0][:160] or type(e).__name__))
        finally:
            envar.keep_ir, envar.dump_dir, envar.arch = saved
        files = [f for f in os.listdir(d) if f.endswith(".mlir")]
        if len(files) != 1:
            raise RuntimeError(f"expected one .mlir dump, found {len(files)}")
        return open(os.path.join(d, files[0])).read()


def smem_bytes(v):
    """The tensorop example's shared memory by hand: A's and B's staged tiles, or C's tile where
    larger (the epilogue reuses the buffer), 16-bit elements."""
    bm, bn, bk = v["tile"]
    return max((bm * bk + bn * bk) * v["stages"] * 2, bm * bn * 2)


def c_store_degree(bn):
    """The epilogue's register-to-shared stores by hand: an SM80 16x8 accumulator puts lane l's two
    f16 (one 32-bit word) at row l // 4, column 2 (l % 4) of C's staging tile, rows bN elements
    apart (C row-major in the kernel), under the example's S<b,3,4> on element offsets
    (b = min(log2(bN * 16 / 128), 3): bits [7, 7+b) xor-ed into [3, 3+b)). The degree: the most
    distinct words one bank serves."""
    b = min(int(math.log2(bn * 16 // 128)), 3)
    banks = {}
    for lane in range(32):
        e = (lane // 4) * bn + 2 * (lane % 4)
        e ^= (e >> 4) & (((1 << b) - 1) << 3)
        banks.setdefault((e // 2) % 32, set()).add(e // 2)
    return max(len(w) for w in banks.values())


def g2s_write_degree(v, operand):
    """An MN-major operand's cp.async writes by hand: the example builds every MN-major copy from
    bM (threads (bM/8, T/(bM/8)) with stride (1, bM/8), 8 elements each), while the operand's smem
    atom is min(rows, 64) elements wide along MN, swizzled S<3,4,3>-style on bytes (b from that
    width, as tensorop_operands). One phase, threads 0..7: thread t writes 16 bytes at MN
    8 (t % (bM/8)), K t // (bM/8), element MN + width K. The degree: most threads on one 16-byte
    bank group. None for a K-major operand (its copy matches its atom)."""
    bm, bn, bk = v["tile"]
    o = tensorop_operands(v)[operand]
    if o["kmajor"]:
        return None
    width, b, per_row = o["row_bytes"] // 2, o["swizzle"], bm // 8
    groups = {}
    for t in range(8):
        a = 2 * (8 * (t % per_row) + width * (t // per_row))
        a ^= (a >> 3) & (((1 << b) - 1) << 4)
        groups[(a % 128) // 16] = groups.get((a % 128) // 16, 0) + 1
    return max(groups.values())


def example_limits(v):
    """Where our drawn tile leaves what tensorop_gemm.py was written for (its runner fixes
    128x128x32 and 128x128x64): the reasons, by hand from the example's own formulas, that its
    copies or tiled MMA do not fit the CTA tile (tfspec then leaves the pipeline unchecked,
    kernel-input). Empty: the example's pieces fit and the pipeline must be checked."""
    bm, bn, bk = v["tile"]
    am, an, _ = v["atoms"]
    if v["c"] == "m":  # C^T = B^T A^T: the atom layout's M and N swapped, the CTA tile not
        am, an = an, am
    threads = 32 * am * an
    out = []
    if bm % (am * 16) or bn % (an * 16):  # permutation (16 am, 16 an, 16): 8 N per atom, twice
        out.append("the tiled MMA's permutation")
    ops = {"A": (bm, v["a"] if v["c"] == "n" else v["b"]), "B": (bn, v["b"] if v["c"] == "n" else v["a"])}
    for x, (rows, major) in ops.items():
        if major == "k":  # threads (T / (bK/8), bK/8), 8 values along K
            cols = bk // 8
            tile = (threads // cols, bk) if threads % cols == 0 else None
        else:             # threads (bM/8, T / (bM/8)) for A and B alike (the example's self.bM)
            cols = bm // 8
            tile = (bm, threads // cols) if threads % cols == 0 else None
        if tile is None or rows % tile[0] or bk % tile[1]:
            out.append(f"{x}'s global-to-shared copy tile")
    cols = bn // 8  # C row-major in the kernel: threads (T / (bN/8), bN/8)
    if threads % cols or bm % (threads // cols):
        out.append("C's epilogue copy tile")
    return out


# ---------------------------------------------------------------- checking

def check(tfspec, text):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([tfspec, "kernel", "check", "--from", "cute-dsl", f.name, "--json"], capture_output=True, text=True, check=False)
    finally:
        os.unlink(f.name)
    if r.returncode >= 3 or not r.stdout.strip():
        raise RuntimeError(f"tfspec exit {r.returncode}: {r.stderr.strip()[:300]}")
    return json.loads(r.stdout)


def violations(report):
    return [f for f in report["findings"] if f["outcome"] == "violation"]


def line_of_loc(f):
    m = re.match(r"line (\d+)", f.get("loc") or "")
    return int(m.group(1)) if m else None


def describe(f):
    return f"{f['check']} {f.get('subject', '')} ({f.get('loc', '')}): {f['message'][:200]}"


class Sweep:
    def __init__(self, tfspec, rng, verbose):
        self.tfspec, self.rng, self.verbose = tfspec, rng, verbose
        self.variants = self.rejected = self.faults = self.caught = self.benign = 0
        self.failures, self.rejections, self.notes = [], {}, {}
        self.by_kind = {}  # fault kind -> [planted, caught, harmless]

    def fail(self, what, why):
        self.failures.append(f"{what}: {why}")

    def note(self, text):
        self.notes[text] = self.notes.get(text, 0) + 1

    # ---- the compiler's own kernel
    def clean(self, name, v, text, report):
        self.variants += 1
        over = v["kind"] == "tensorop" and smem_bytes(v) > SM80_SMEM
        for f in violations(report):
            if over and f["check"] == "footprint":
                self.note("footprint past sm80's 164 KiB (explained: the tile and stages ask for it)")
                continue
            if v["kind"] == "tensorop" and f["check"] == "banks" and f.get("subject") == "C r2s (write)" \
                    and f.get("detail", {}).get("degree") == c_store_degree(v["tile"][1]) > 1:
                self.note(f"C staging stores {c_store_degree(v['tile'][1])}-way at bN = {v['tile'][1]} (explained: the example's "
                          "S<3,3,4> sees too few of the rows' address bits, by hand)")
                continue
            g2s = re.fullmatch(r"([AB]) g2s \(write\)", f.get("subject") or "")
            if v["kind"] == "tensorop" and f["check"] == "banks" and g2s:
                degree = g2s_write_degree(v, g2s.group(1))
                if degree and degree > 1 and f.get("detail", {}).get("degree") == degree:
                    self.note(f"{g2s.group(1)} g2s writes {degree}-way (explained: the example builds the MN-major copy from "
                              "bM, narrower than the operand's swizzle atom, by hand)")
                    continue
            self.fail(name, "a violation on the compiler's own kernel: " + describe(f))
        if over and not any(f["check"] == "footprint" and f["outcome"] == "violation" for f in report["findings"]):
            self.fail(name, f"{smem_bytes(v)} B of shared memory by hand, past sm80's limit, and no footprint violation")
        pipelines = [f for f in report["findings"] if f["check"] == "pipeline"]
        pipeline = pipelines[0] if pipelines else None
        checked = bool(pipelines) and all(f["outcome"] == "ok" for f in pipelines)
        if v["kind"] == "tensorop":
            limits = example_limits(v)
            if limits and checked:
                self.fail(name, "outside the example's tiles by hand (" + ", ".join(limits) + "), yet tfspec checked the pipeline")
            elif limits:
                why = next(f["message"] for f in pipelines if f["outcome"] != "ok")
                if "kernel-input" not in why:
                    self.fail(name, "outside the example's tiles, and the pipeline left unchecked for another reason: " + why)
                self.note("outside the example's tiles (" + ", ".join(limits) + "): pipeline unchecked (kernel-input)")
            elif not checked:
                self.fail(name, "tensorop_gemm's pipeline not checked: " + "; ".join(f["message"] for f in pipelines if f["outcome"] != "ok"))
            v["checked"] = checked
        if v["kind"] == "sgemm":  # mapped: the SIMT FMA and the padded stages (spec/CUTE_DSL.md §4)
            if not checked:
                self.fail(name, "sgemm's pipeline not checked: " + ("; ".join(f["message"] for f in pipelines if f["outcome"] != "ok") or "no pipeline finding"))
            v["checked"] = checked
        if v["kind"] == "elementwise":  # a known limit: its universal copies state no width
            for f in report["findings"]:
                if f["check"] == "global" and f["outcome"] != "ok":
                    if f["outcome"] != "skipped" or "known element and width" not in f["message"]:
                        self.fail(name, "elementwise_add's copy skipped for another reason: " + describe(f))
                    else:
                        self.note("elementwise_add: its copies state no width (global copy skipped)")
        for f in report["findings"]:
            if f["outcome"] == "undecided":
                self.note(f"undecided on a compiler's kernel: {f['check']} {f.get('subject', '')}")

    # ---- a planted fault
    def planted(self, name, fault, text, expect):
        """expect(report) -> None when the fault was caught as it should be, else why not. A
        fault a hand model says is harmless returns 'benign' and requires no violation of that kind."""
        self.faults += 1
        try:
            report = check(self.tfspec, text)
        except RuntimeError as e:
            self.fail(f"{name} [{fault}]", str(e))
            return
        why = expect(report)
        tally = self.by_kind.setdefault(fault.split(":")[0].split(" ")[0], [0, 0, 0])
        tally[0] += 1
        if why is None:
            self.caught += 1
            tally[1] += 1
        elif why == "benign":
            self.benign += 1
            tally[2] += 1
        else:
            self.fail(f"{name} [{fault}]", why)
        if self.verbose:
            print(f"    {fault}: {'caught' if why is None else why}")


# -- swizzle: hand model of an ldmatrix phase (eight 16-byte rows, row stride R bytes, the byte
# swizzle S<b,4,3> xor-ing address bits [7, 7+b) into [4, 4+b)); the degree is the most rows
# whose 16 bytes land on the same four banks.
def ldmatrix_degree(row_bytes, b):
    groups = {}
    for r in range(8):
        a = r * row_bytes
        a ^= (a >> 3) & (((1 << b) - 1) << 4)
        groups[(a % 128) // 16] = groups.get((a % 128) // 16, 0) + 1
    return max(groups.values())


def tensorop_operands(v):
    """The IR's A and B after the example's swap (C M-major: C^T = B^T A^T swaps the tensors, not
    the CTA tile): for each, whether it is K-major and its tile's rows (bM for A, bN for B); the
    smem atom's contiguous extent min(major, 64)."""
    bm, bn, bk = v["tile"]
    a_major, b_major = (v["a"], v["b"]) if v["c"] == "n" else (v["b"], v["a"])
    a = {"kmajor": a_major == "k", "rows": bm}
    b = {"kmajor": b_major == "k", "rows": bn}
    out = {}
    for name, o in (("A", a), ("B", b)):
        mms = min(bk if o["kmajor"] else o["rows"], 64)
        out[name] = {"row_bytes": mms * 2, "swizzle": min(int(math.log2(mms * 16 // 128)), 3), "kmajor": o["kmajor"]}
    return out


def fault_swizzle(sw, name, v, text):
    ops = tensorop_operands(v)
    target = sw.rng.choice(["A", "B"])
    b = ops[target]["swizzle"]
    if b == 0:
        return
    weaker = sw.rng.randrange(0, b)
    old = f", S<{b},4,3>,"
    if old not in text:
        sw.fail(name, f"no pointer swizzle {old.strip(',')} for {target} in the IR")
        return
    mutated = text.replace(old, "," if weaker == 0 else f", S<{weaker},4,3>,")
    affected = {x: ldmatrix_degree(o["row_bytes"], weaker) for x, o in ops.items() if o["swizzle"] == b}

    def expect(report):
        for x, degree in affected.items():
            f = next((f for f in report["findings"] if f["check"] == "banks" and f.get("subject") == f"{x} s2r (read)"), None)
            if f is None:
                return f"no banks finding for {x} s2r"
            got = f.get("detail", {}).get("degree")
            if degree == 1 and f["outcome"] != "ok":
                return f"{x} s2r: the model gives conflict-free, tfspec says {describe(f)}"
            if degree > 1 and (f["outcome"] != "violation" or got != degree):
                return f"{x} s2r: the model gives {degree}-way, tfspec says degree {got}: {describe(f)}"
        return None if any(d > 1 for d in affected.values()) else "benign"
    sw.planted(name, f"swizzle S<{b},4,3> -> {'none' if weaker == 0 else f'S<{weaker},4,3>'}", mutated, expect)


def fault_hopper_swizzle(sw, name, v, text):
    """The 128B swizzle weakened to 64B: the box's 128 bytes along K (64 f16) pass the 64B mode's
    span (spec/CUTE_DSL.md §6)."""
    if ", S<3,4,3>," not in text:
        sw.fail(name, "no S<3,4,3> pointer swizzle in the Hopper GEMM's IR")
        return

    def expect(report):
        if any(f.get("rule") == "kernel-tma-box" or (f["outcome"] == "violation" and "tma" in f["message"].lower()) for f in violations(report)):
            return None
        return "no kernel-tma-box violation: " + "; ".join(describe(f) for f in violations(report))
    sw.planted(name, "swizzle S<3,4,3> -> S<2,4,3> (TMA)", text.replace(", S<3,4,3>,", ", S<2,4,3>,"), expect)


# -- stride: one stride of a static composition's result changed by one
COMPOSITION = re.compile(r"cute\.composition\(.*?\) : \((!cute\.layout<\"[^\"?@]*\">), (!cute\.layout<\"[^\"?@]*\">)\) -> !cute\.layout<\"([^\"?@]*)\">")


def fault_stride(sw, name, text, report):
    ok_lines = {f["detail"]["line"] for f in report["findings"] if f["check"] == "layout-op" and f["outcome"] == "ok"
                and f.get("subject") == "cute.composition" and "line" in f.get("detail", {})}
    lines = text.split("\n")
    candidates = []
    for i, line in enumerate(lines):
        m = COMPOSITION.search(line)
        if m and i + 1 in ok_lines:
            shape, stride = parse_layout(m.group(3))
            leaves = [j for j, (s, d) in enumerate(zip(flat(shape), flat(stride))) if isinstance(s, int) and s > 1]
            if leaves:
                candidates.append((i, m, leaves))
    if not candidates:
        return
    i, m, leaves = sw.rng.choice(candidates)
    shape, stride = parse_layout(m.group(3))
    j = sw.rng.choice(leaves)
    k = iter(range(10 ** 9))

    def bump(t):
        return tuple(bump(x) for x in t) if isinstance(t, tuple) else (t + 1 if next(k) == j else t)
    new = fmt(shape) + ":" + fmt(bump(stride) if isinstance(stride, tuple) else stride + 1)
    old_result = f'-> !cute.layout<"{m.group(3)}">'
    lines[i] = lines[i].replace(old_result, f'-> !cute.layout<"{new}">')

    def expect(report):
        for f in report["findings"]:
            if f["check"] == "layout-op" and f.get("detail", {}).get("line") == i + 1:
                if f["outcome"] == "violation" and f.get("subject") == "cute.composition":
                    return None
                if f["outcome"] == "undecided" and f.get("detail", {}).get("past_domain"):
                    sw.note("stride fault past A's domain: undecided (spec/CUTE_DSL.md, D15)")
                    return None
                return f"line {i + 1}: {describe(f)}"
        return f"no layout-op finding at line {i + 1}"
    sw.planted(name, f"stride: composition result {m.group(3)} -> {new} (line {i + 1})", "\n".join(lines), expect)


# -- the global copies: (alias, atom, TV, tiler) of the async and universal copies
COPY = re.compile(r'^(!\w+) = !cute\.tiled_copy<!cute_nvgpu\.atom\.(simt_async_copy|universal_copy)<(\w+)[^>]*?(\d+) b>, '
                  r'layout_copy_tv = <"([^"]+)">, tiler_mn = <"\[(\d+):1;(\d+):1\]">>$', re.M)


def copies(text):
    out = []
    for m in COPY.finditer(text):
        shape, stride = parse_layout(m.group(5))
        if "?" in m.group(5) or not isinstance(shape, tuple) or len(shape) != 2:
            continue
        elem_bits = {"f16": 16, "bf16": 16, "f32": 32}.get(m.group(3))
        if not elem_bits:
            continue
        out.append({"alias": m.group(1), "atom": m.group(2), "line": m.group(0), "tv": (shape, stride), "tv_text": m.group(5),
                    "P": int(m.group(6)), "K": int(m.group(7)), "elem": elem_bits // 8, "V": int(m.group(4)) // elem_bits})
    return out


def contiguous_mode(c):
    """The tile mode the copy's values run along: its value mode's first stride (1: mode 0)."""
    vals = [d for s, d in zip(flat(c["tv"][0][1]), flat(c["tv"][1][1])) if s > 1]
    return 0 if vals and vals[0] == 1 else 1


def warp_sectors(tv, P, contiguous, vec, elem):
    """Worst warp access of a tiled copy by our own count: thread t's values vec*a .. vec*a+vec-1
    at tile index TV(t + T v), tile (m, k) = (i % P, i // P), the contiguous mode stride 1 and the
    other 2^20 elements (rows far apart). Sectors: distinct 32-byte blocks; ideal: the fewest that
    hold the bytes from the warp's lowest address. Returns (sectors, ideal) of the worst."""
    shape, stride = tv
    T, V = size(shape[0]), size(shape[1])
    worst = (0, 1)
    for w in range(0, T, 32):
        for a in range(0, V, vec):
            addrs = set()
            for t in range(w, min(T, w + 32)):
                for val in range(a, min(V, a + vec)):
                    i = evaluate(shape, stride, t + T * val)
                    m, k = i % P, i // P
                    e = (m if contiguous == 0 else k) + (k if contiguous == 0 else m) * (1 << 20)
                    addrs.update(range(e * elem, e * elem + elem))
            sectors = len({x // 32 for x in addrs})
            ideal = (min(addrs) % 32 + len(addrs) + 31) // 32
            if sectors * worst[1] > worst[0] * ideal:
                worst = (sectors, ideal)
    return worst


def fault_walk(sw, name, text, report):
    """A global copy's threads made to walk the strided dimension first; tfspec must report
    kernel-coalescing at its partition exactly where our sector count says more than ideal."""
    global_findings = [f for f in report["findings"] if f["check"] == "global" and f["outcome"] == "ok" and " partition_" in (f.get("subject") or "")]
    cands = [c for c in copies(text) if any(f["subject"].startswith(c["alias"] + " ") for f in global_findings)]
    if not cands:
        return
    c = sw.rng.choice(cands)
    T, V, P, K = size(c["tv"][0][0]), size(c["tv"][0][1]), c["P"], c["K"]
    cm = contiguous_mode(c)
    if T * V != P * K or (cm == 1 and K % V) or (cm == 0 and P % V):
        return
    if cm == 1:  # K contiguous: thread t at row t % P, chunk t // P
        shape, stride = ((P, K // V), V), ((1, V * P), P)
    else:        # M contiguous: thread t at k = t % K, chunk t // K
        shape, stride = ((K, P // V), V), ((P, V), 1)
    if fmt(shape) + ":" + fmt(stride) == c["tv_text"]:
        return
    new_tv = fmt(shape) + ":" + fmt(stride)
    mutated = text.replace(c["line"], c["line"].replace(f'layout_copy_tv = <"{c["tv_text"]}">', f'layout_copy_tv = <"{new_tv}">'))
    sectors, ideal = warp_sectors((shape, stride), P, cm, c["V"], c["elem"])
    clean_sectors, clean_ideal = warp_sectors(c["tv"], P, cm, c["V"], c["elem"])
    if clean_sectors > clean_ideal:
        sw.fail(name, f"our count gives the compiler's {c['alias']} {clean_sectors} sectors for {clean_ideal}")
    faulty = sectors > ideal

    def expect(report):
        hits = [f for f in report["findings"] if f["check"] == "global" and (f.get("subject") or "").startswith(c["alias"] + " partition_")]
        bad = [f for f in hits if f["outcome"] == "violation"]
        if faulty:
            if bad and all(f.get("rule") in (None, "kernel-coalescing") for f in bad):
                return None
            return f"{c['alias']}: our count {sectors} sectors for {ideal}, tfspec: " + ("; ".join(describe(f) for f in hits) or "no finding")
        if bad:
            return f"{c['alias']}: our count gives the ideal {ideal}, tfspec: " + "; ".join(describe(f) for f in bad)
        return "benign"
    sw.planted(name, f"walk: {c['alias']} {c['tv_text']} -> {new_tv}", mutated, expect)


# -- padding: sgemm's K-major smem (R,bK,S):(1,R+4,bK(R+4)) with the padding removed. Hand model
# of the 32-bit g2s writes: warp 0's first access, thread t at the copy tile's index tv(t), i.e.
# (m, k) = (i % P, i // P), offset m + R k, bank offset % 32; the degree is the most distinct words
# one bank serves. Padded (R + 4 = 4 mod 32) the same model gives 1.
def padded_write_degree(c, row):
    banks = {}
    for t in range(32):
        i = evaluate(c["tv"][0], c["tv"][1], t)
        off = i % c["P"] + row * (i // c["P"])
        banks.setdefault(off % 32, set()).add(off)
    return max(len(w) for w in banks.values())


def fault_padding(sw, name, v, text):
    """Only a K-major operand is padded (the example pads R + 4 where the tensor is row-major); an
    M- or N-major one is left as it is."""
    bm, bn, bk = v["tile"]
    cands = [c for c in copies(text) if c["atom"] == "simt_async_copy" and c["elem"] == 4 and c["V"] == 1]
    padded_ops = [(op, rows) for op, rows, major in (("A", bm, v.get("a", "k")), ("B", bn, v.get("b", "k"))) if major == "k"]
    if not cands or not padded_ops:
        return
    mutated = text
    for _, rows in padded_ops:
        padded = f"({rows},{bk},{v['stages']}):(1,{rows + 4},{bk * (rows + 4)})"
        if padded not in text:
            sw.fail(name, f"sgemm's padded smem {padded} not found in the dump")
            return
        mutated = mutated.replace(padded, f"({rows},{bk},{v['stages']}):(1,{rows},{bk * rows})")
    degree = {op: padded_write_degree(cands[0], rows) for op, rows in padded_ops}

    def expect(report):
        for op in degree:
            f = next((f for f in report["findings"] if f["check"] == "banks" and f.get("subject") == op + " g2s (write)"), None)
            if f is None:
                return f"no banks finding for {op}'s g2s writes"
            got = f["detail"].get("degree", 1) if f["outcome"] == "violation" else 1
            if f["outcome"] not in ("ok", "violation") or got != degree[op]:
                return f"{op} g2s writes: {f['outcome']} degree {got}, the hand model {degree[op]}"
        return None if max(degree.values()) > 1 else "benign"
    sw.planted(name, "padding: removed (hand degrees " + ", ".join(f"{op} {d}" for op, d in degree.items()) + ")", mutated, expect)


def fault_twice(sw, name, text, report):
    """A g2s copy's largest thread sub-mode n:d split as (n/2,2):(d,0): thread j + (n/2) x ...
    writes the element thread j does; coverage must name it at that copy's partition."""
    cands = [c for c in copies(text) if c["atom"] == "simt_async_copy"]
    if not cands:
        return
    c = sw.rng.choice(cands)
    tshape, tstride = c["tv"][0][0], c["tv"][1][0]
    leaves = list(zip(flat(tshape), flat(tstride)))
    j = max(range(len(leaves)), key=lambda i: leaves[i][0] if leaves[i][1] else 0)
    if leaves[j][0] < 2 or leaves[j][0] % 2 or not leaves[j][1]:
        return
    k1, k2 = iter(range(10 ** 9)), iter(range(10 ** 9))

    def split(t, k, f):
        if isinstance(t, tuple):
            return tuple(split(x, k, f) for x in t)
        return f(t) if next(k) == j else t
    ns = split(tshape, k1, lambda s: (s // 2, 2)) if isinstance(tshape, tuple) else (tshape // 2, 2)
    nd = split(tstride, k2, lambda d: (d, 0)) if isinstance(tstride, tuple) else (tstride, 0)
    new_tv = fmt((ns, c["tv"][0][1])) + ":" + fmt((nd, c["tv"][1][1]))
    mutated = text.replace(c["line"], c["line"].replace(f'layout_copy_tv = <"{c["tv_text"]}">', f'layout_copy_tv = <"{new_tv}">'))
    lines = mutated.split("\n")

    def expect(report):
        for f in report["findings"]:
            if f["check"] == "coverage" and f["outcome"] == "violation" and (f.get("subject") or "").endswith("g2s"):
                ln = line_of_loc(f)
                if ln and c["alias"] in lines[ln - 1]:
                    return None
        return f"no coverage violation at {c['alias']}'s partition: " + ("; ".join(describe(f) for f in violations(report)) or "no violation")
    sw.planted(name, f"twice: {c['alias']} {c['tv_text']} -> {new_tv}", mutated, expect)


def label(v):
    if v["kind"] == "tensorop":
        return f"tensorop {v['dtype']} tile {'x'.join(map(str, v['tile']))} atoms {v['atoms'][0]}x{v['atoms'][1]} stages {v['stages']} A {v['a']} B {v['b']} C {v['c']}"
    return v["kind"] + " " + " ".join(f"{k}={val}" for k, val in v.items() if k != "kind")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--tfspec", default=os.environ.get("TFSPEC_CLI", "tfspec"))
    ap.add_argument("--cutlass", default=None, help="a CUTLASS checkout or its examples/python/CuTeDSL (else $TFSPEC_CUTLASS_EXAMPLES)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--keep", default=None, help="write each compiled variant's MLIR into this folder (draw number and label)")
    args = ap.parse_args()
    try:
        importlib.import_module("cutlass.cute")
    except Exception as e:  # the peer is optional: ctest reads 77 as skipped
        print(f"skipped: the CuTe DSL is not importable ({type(e).__name__}: {e}); python3 -m pip install nvidia-cutlass-dsl")
        return SKIP
    root = examples_root(args.cutlass)
    if root is None:
        print("skipped: no CUTLASS CuTeDSL examples (give --cutlass DIR or set TFSPEC_CUTLASS_EXAMPLES to a CUTLASS checkout; "
              "frontends/cute_dsl/tests/fixtures/VERSION records the commit)")
        return SKIP
    rng = random.Random(args.seed)
    sw = Sweep(args.tfspec, rng, args.verbose)
    dumps = {}
    for draw in range(args.draws):
        v = draw_variant(rng)
        name = label(v)
        key = json.dumps(v, sort_keys=True)
        if key not in dumps:
            try:
                dumps[key] = dump(root, v)
            except Rejected as e:
                dumps[key] = e
        if isinstance(dumps[key], Rejected):
            sw.rejected += 1
            why = str(dumps[key])
            sw.rejections[why] = sw.rejections.get(why, 0) + 1
            if args.verbose:
                print(f"[{draw}] {name}: rejected by {why}")
            continue
        text = dumps[key]
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            open(os.path.join(args.keep, f"{draw:03d} {name}.mlir".replace(" ", "_")), "w").write(text)
        if args.verbose:
            print(f"[{draw}] {name}")
        try:
            report = check(args.tfspec, text)
        except RuntimeError as e:
            sw.fail(name, str(e))
            continue
        before = len(sw.failures)
        sw.clean(name, v, text, report)
        fault_stride(sw, name, text, report)
        if v["kind"] == "tensorop" and v.get("checked"):  # the checks these faults need run on a checked pipeline
            fault_swizzle(sw, name, v, text)
            fault_twice(sw, name, text, report)
        if v["kind"] == "sgemm" and v.get("checked"):
            fault_padding(sw, name, v, text)
            fault_twice(sw, name, text, report)
        if v["kind"] == "hopper":
            fault_hopper_swizzle(sw, name, v, text)
        if v["kind"] in ("tensorop", "flash", "sgemm"):
            fault_walk(sw, name, text, report)
        if args.verbose and len(sw.failures) > before:
            for f in sw.failures[before:]:
                print("    FAIL " + f)
    print(f"seed {args.seed}, {args.draws} draws: {sw.variants} variants checked, {sw.rejected} rejected "
          f"({', '.join(f'{n} by {w}' for w, n in sorted(sw.rejections.items())) or 'none'}); "
          f"{sw.faults} faults planted, {sw.caught} caught, {sw.benign} harmless by the hand models and not flagged; "
          f"{len(sw.failures)} failures")
    print("  faults by kind: " + ", ".join(f"{k} {t[0]} planted / {t[1]} caught / {t[2]} harmless" for k, t in sorted(sw.by_kind.items())))
    for text, n in sorted(sw.notes.items()):
        print(f"  note ({n}x): {text}")
    for f in sw.failures:
        print("FAIL " + f)
    return 1 if sw.failures else 0


if __name__ == "__main__":
    sys.exit(main())
