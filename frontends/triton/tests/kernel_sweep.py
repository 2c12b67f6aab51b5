#!/usr/bin/env python3
"""A seeded random sweep over Triton kernels compiled by the installed Triton without a GPU
(cuda:80 and cuda:90; issue 48, spec/TRITON.md §4). The kernels are sweep_kernels.py's: matmuls at
random BLOCK sizes, num_warps, num_stages, transposes and dtypes (fp8 included), softmax, layer norm,
attention, transposes, reductions, copies and masked ragged loads. For each, `tfspec kernel check
--from triton --json` runs on its TTGIR and its modelled facts are compared with Triton's own output:

- the vector width of every global load, store and cp.async tfspec models, per source line, against
  the widths of the `ld.global` / `st.global` / `cp.async` instructions Triton's PTX places at that
  line (the PTX's `.loc` comments name the line);
- the shared-memory footprint against `metadata.shared`: equal (a reduction's scratch across warps
  included, spec/TRITON.md §3.5.1), or a difference the model names (§3.5: mbarriers);
- a masked load or store whose mask Triton cannot vectorize (spec/TRITON.md §3.4.1) has the mask's
  cap as its ideal vector (never a vector fault); it is a violation only where its requests touch
  more sectors than the ideal (a thread's run longer than the mask's constancy);
- planted faults, each caught by its check at the source line the TTGIR gives the op (the lines
  marked `# @NAME` in sweep_kernels.py): a `swizzled_shared` with `maxPhase = 1` under an ldmatrix
  operand (bank conflicts of degree min(8, row bytes / 16)), a blocked layout whose threads walk the
  strided dim of a row-major copy (`sizePerThread = [8, 1]`, `order = [0, 1]`: 16-bit accesses)
  while reversing `order` alone is no fault, an mma.sync B operand and a wgmma register A operand
  whose `kWidth` disagrees with the mma (doubled).

Any disagreement is printed with the kernel's name and the sweep exits 1. Without Triton it prints
why and exits 77 (skipped).

    python3 frontends/triton/tests/kernel_sweep.py --tfspec build/cli/tfspec [--seed S] [--count N] [--keep DIR]
"""
import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

DIV16 = [["tt.divisibility", 16]]
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+.*//\s*(\S+?):(\d+):\d+")
GLOBAL = re.compile(r"\b(ld|st)\.global((?:\.[\w:]+)*)")
LDMATRIX = re.compile(r"\bldmatrix\.sync\.aligned\.m8n8\.x\d(\.trans)?\.shared")
CP_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared\.global(?:\.L2::\w+)?\s*\[[^\]]*\],\s*\[[^\]]*\],\s*(0x[0-9a-fA-F]+|\d+)")


def marker_lines():
    """`# @NAME` -> its line in sweep_kernels.py (the planted faults' expected locations)."""
    out = {}
    with open(os.path.join(HERE, "sweep_kernels.py")) as f:
        for i, line in enumerate(f, 1):
            m = re.search(r"# @(\w+)", line)
            if m:
                out[m.group(1)] = i
    return out


def ptx_widths(ptx):
    """(kind, source line) -> the set of widths in bits: kind ld, st (global) or cp (cp.async)."""
    widths = collections.defaultdict(set)
    line, in_asm, asm_loc = None, False, False
    for text in ptx.splitlines():
        # ptxas numbers an inline asm block's lines from its .loc: inside one, only the first .loc
        # (the op's own) counts
        if "// begin inline asm" in text:
            in_asm, asm_loc = True, False
            continue
        if "// end inline asm" in text:
            in_asm = False
            continue
        m = LOC.match(text)
        if m:
            if not in_asm or not asm_loc:
                line = int(m.group(3)) if m.group(2).endswith("sweep_kernels.py") else None
            asm_loc = asm_loc or in_asm
            continue
        if line is None:
            continue
        lm = LDMATRIX.search(text)
        if lm:
            widths[("ldmatrix", line)].add("ldmatrix" + (".trans" if lm.group(1) else ""))
            continue
        c = CP_ASYNC.search(text)
        if c:
            widths[("cp", line)].add(int(c.group(1), 0) * 8)
            continue
        g = GLOBAL.search(text)
        if g:
            mods = g.group(2).split(".")
            n = next((int(x[1:]) for x in mods if re.fullmatch(r"v\d+", x)), 1)
            b = next((int(x[1:]) for x in reversed(mods) if re.fullmatch(r"[bfsu]\d+", x)), None)
            if b is not None:
                widths[(g.group(1), line)].add(n * b)
    return widths


def line_of(loc):
    m = re.search(r":(\d+):\d+$", loc or "")
    return int(m.group(1)) if m else None


def tfspec_widths(report):
    out = collections.defaultdict(set)
    for f in report["findings"]:
        det = f.get("detail", {})
        if f["check"] == "width" and det.get("model") == "ldmatrix":  # a local_load into an mma operand
            out[("ldmatrix", line_of(f.get("loc")))].add(det["instruction"])
        if f["check"] == "convert" and det.get("load", {}).get("instruction", "").startswith("ldmatrix"):
            out[("ldmatrix", line_of(f.get("loc")))].add(det["load"]["instruction"])
        if f["check"] != "global" or "vector_bits" not in f.get("detail", {}):
            continue
        kind = "cp" if "async_copy" in f["subject"] else "ld" if f["subject"].startswith("tt.load") else "st"
        out[(kind, line_of(f.get("loc")))].add(f["detail"]["vector_bits"])
    return out


# --- the kernels, drawn -------------------------------------------------------------------------

def matmul_case(rng, K):
    bm, bn, bk = rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128, 256]), rng.choice([16, 32, 64, 128])
    warps, stages = rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 3, 4])
    a_t, b_t = rng.choice([(False, False), (True, False), (False, True), (True, True)])
    cap = rng.choice([80, 90])
    dtype = rng.choice(["fp16", "bf16", "fp32"] + (["fp8e4nv", "fp8e5"] if cap == 90 else []))
    if dtype.startswith("fp8"):
        a_t, b_t = False, b_t  # fp8 dots take A K-major
    names = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"]
    unit = {"stride_am" if a_t else "stride_ak", "stride_bk" if b_t else "stride_bn", "stride_cn"}
    sig, cx, attrs = {}, {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, {}
    for i, n in enumerate(names):
        if n in unit:
            sig[n], cx[n] = "constexpr", 1
            continue
        sig[n] = ("*fp16" if dtype.startswith("fp8") else "*" + dtype) if n == "c_ptr" else "*" + dtype if n.endswith("_ptr") else "i32"
        attrs[(i,)] = DIV16
    sig.update(BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr")
    name = f"matmul_{dtype}_{bm}x{bn}x{bk}_w{warps}_s{stages}" + ("_at" if a_t else "") + ("_bt" if b_t else "")
    return name, K.matmul, sig, cx, attrs, {"num_warps": warps, "num_stages": stages}, cap


def row_case(rng, K):
    which = rng.choice(["softmax", "layer_norm"])
    block, warps, cap = rng.choice([128, 256, 512, 1024, 2048, 4096]), rng.choice([1, 2, 4, 8, 16]), rng.choice([80, 90])
    dt = rng.choice(["fp16", "fp32", "bf16"])
    divisible = rng.random() < 0.7  # n_cols specialised as divisible by 16, or not (a ragged row)
    if which == "softmax":
        sig = {"out_ptr": "*" + dt, "in_ptr": "*" + dt, "in_stride": "i32", "out_stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"}
        fn, sized = K.softmax, (0, 1, 2, 3)
    else:
        sig = {"x_ptr": "*" + dt, "y_ptr": "*" + dt, "w_ptr": "*" + dt, "b_ptr": "*" + dt, "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"}
        fn, sized = K.layer_norm, (0, 1, 2, 3, 4)
    attrs = {(i,): DIV16 for i in sized}
    n_index = list(sig).index("n_cols" if which == "softmax" else "N")
    if divisible:
        attrs[(n_index,)] = DIV16
    name = f"{which}_{dt}_{block}_w{warps}" + ("" if divisible else "_ragged")
    return name, fn, sig, {"BLOCK": block}, attrs, {"num_warps": warps, "num_stages": 1}, cap


def attention_case(rng, K):
    bm, bn, head = rng.choice([32, 64, 128]), rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])
    warps, stages, cap = rng.choice([4, 8]), rng.choice([1, 2, 3]), rng.choice([80, 90])
    sig = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "stride_s": "i32", "n_ctx": "i32",
           "scale": "fp32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "HEAD": "constexpr"}
    return (f"attention_{bm}x{bn}x{head}_w{warps}_s{stages}", K.attention, sig, {"BLOCK_M": bm, "BLOCK_N": bn, "HEAD": head},
            {(i,): DIV16 for i in range(6)}, {"num_warps": warps, "num_stages": stages}, cap)


def tile_case(rng, K):
    which = rng.choice(["transpose", "reduce_rows", "copy2d", "ragged"])
    bm, bn, warps, cap = rng.choice([8, 16, 32, 64, 128]), rng.choice([8, 16, 32, 64, 128]), rng.choice([1, 2, 4, 8]), rng.choice([80, 90])
    dt = rng.choice(["fp16", "fp32", "i8", "bf16"] if which != "reduce_rows" else ["fp16", "fp32"])
    cx = {"BLOCK_M": bm, "BLOCK_N": bn}
    if which == "transpose":
        sig, attrs = {"in_ptr": "*" + dt, "out_ptr": "*" + dt, "stride_in": "i32", "stride_out": "i32"}, {(i,): DIV16 for i in range(4)}
    elif which == "reduce_rows":
        sig, attrs = {"in_ptr": "*" + dt, "out_ptr": "*fp32", "stride": "i32"}, {(i,): DIV16 for i in range(3)}
        cx["AXIS"] = rng.choice([0, 1])
    elif which == "copy2d":
        sig, attrs = {"in_ptr": "*" + dt, "out_ptr": "*" + dt, "stride": "i32"}, {(i,): DIV16 for i in range(3)}
    else:
        sig, attrs = {"in_ptr": "*" + dt, "out_ptr": "*" + dt, "stride": "i32", "n_cols": "i32"}, {(i,): DIV16 for i in range(3)}
        if rng.random() < 0.4:
            attrs[(3,)] = DIV16
    for k in cx:
        sig[k] = "constexpr"
    name = f"{which}_{dt}_{bm}x{bn}_w{warps}" + (f"_axis{cx['AXIS']}" if "AXIS" in cx else "") + ("_n16" if (3,) in attrs and which == "ragged" else "")
    return name, getattr(K, which), sig, cx, attrs, {"num_warps": warps, "num_stages": 1}, cap


def draw(rng, K):
    kind = rng.choices(["matmul", "row", "attention", "tile"], weights=[5, 2, 1, 3])[0]
    return {"matmul": matmul_case, "row": row_case, "attention": attention_case, "tile": tile_case}[kind](rng, K)


# --- the comparisons ----------------------------------------------------------------------------

def check_tool(tfspec, path):
    r = subprocess.run([tfspec, "kernel", "check", "--from", "triton", path, "--json"], capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"tfspec failed on {path} (exit {r.returncode}): {r.stderr.strip()[:300]}")


def compare_footprint(name, report, shared, ttgir, bad, notes):
    fp = next((f for f in report["findings"] if f["check"] == "footprint"), None)
    ours = fp["detail"]["bytes"] if fp else None
    if ours == shared:
        notes["footprint equal"] += 1
        if fp["detail"].get("reduce_scratch_bytes"):
            notes["footprint equal, a reduction's scratch in it (§3.5.1)"] += 1
        return
    # Explained: mbarriers (8 B each) Triton places beside the buffers (§3.5).
    if 0 < shared - ours <= 16 and "ttng.init_barrier" in ttgir:
        notes["footprint: mbarrier bytes"] += 1
        return
    bad.append(f"{name}: footprint {ours} B, Triton's metadata.shared {shared} B")


def plant(ttgir, kind, meta):
    """The TTGIR with one fault planted, or None where the kernel has no place for it."""
    if kind == "maxphase":
        if "swizzled_shared" not in ttgir or "ttg.local_load" not in ttgir or "nvidia_mma" not in ttgir:
            return None
        return re.sub(r"maxPhase = \d+", "maxPhase = 1", ttgir)
    if kind in ("strided", "reversed"):
        m = re.search(r"^#blocked = #ttg\.blocked<\{sizePerThread = \[1, (\d+)\], threadsPerWarp = \[(\d+), (\d+)\], warpsPerCTA = \[(\d+), (\d+)\], order = \[1, 0\]\}>$", ttgir, re.M)
        if not m or int(m.group(1)) < 2:
            return None
        spt, tm, tn, wm, wn = (int(x) for x in m.groups())
        if kind == "strided":  # the same tile with each thread's run along the strided dim
            enc = f"#ttg.blocked<{{sizePerThread = [{spt}, 1], threadsPerWarp = [{tn}, {tm}], warpsPerCTA = [{wn}, {wm}], order = [0, 1]}}>"
        else:  # reversing order alone: the thread's run and the warp's sectors stay
            enc = f"#ttg.blocked<{{sizePerThread = [1, {spt}], threadsPerWarp = [{tm}, {tn}], warpsPerCTA = [{wm}, {wn}], order = [0, 1]}}>"
        return ttgir[:m.start()] + "#blocked = " + enc + ttgir[m.end():]
    if kind == "kwidth_b":  # mma.sync's B operand with its kWidth doubled
        pat = r"(#ttg\.dot_op<\{opIdx = 1, parent = (#mma\w*), kWidth = )(\d+)(\}>)"
        m = re.search(pat, ttgir)
        if not m or "versionMajor = 2" not in ttgir:
            return None
        return re.sub(pat, lambda x: x.group(1) + str(int(x.group(3)) * 2) + x.group(4), ttgir)
    if kind == "kwidth_a3":  # wgmma's register A operand with its kWidth doubled
        m = re.search(r"^(#mma\w*) = #ttg\.nvidia_mma<\{versionMajor = 3", ttgir, re.M)
        if not m:
            return None
        pat = r"(#ttg\.dot_op<\{opIdx = 0, parent = " + re.escape(m.group(1)) + r", kWidth = )(\d+)(\}>)"
        if not re.search(pat, ttgir):
            return None
        return re.sub(pat, lambda x: x.group(1) + str(int(x.group(2)) * 2) + x.group(3), ttgir)
    return None


def check_planted(tfspec, d, name, ttgir, marks, bad, notes, K):
    for kind, want_check, want_rule, mark in [("maxphase", "banks", "kernel-bank-conflict", None),
                                              ("strided", "global", "kernel-global-access", "copy_load"),
                                              ("reversed", "global", None, "copy_load"),
                                              ("kwidth_b", "dot", "kernel-dot-operands", "mm_dot"),
                                              ("kwidth_a3", "dot", "kernel-dot-operands", "attn_pv_dot")]:
        if kind in ("strided", "reversed") and not name.startswith("copy2d"):
            continue
        if mark == "mm_dot" and name.startswith("attention"):
            mark = "attn_qk_dot"  # an attention kernel's first dot: its B is the one changed
        text = plant(ttgir, kind, None)
        if text is None:
            continue
        path = os.path.join(d, f"{name}.{kind}.ttgir")
        with open(path, "w") as f:
            f.write(text)
        rep = check_tool(tfspec, path)
        hits = [f for f in rep["findings"] if f["check"] == want_check and f.get("rule") == want_rule and f["outcome"] == "violation"]
        if want_rule is None:  # no fault: the copy's load must be ok
            at = [f for f in rep["findings"] if f["check"] == "global" and line_of(f.get("loc")) == marks[mark]]
            if not at or any(f["outcome"] != "ok" for f in at):
                bad.append(f"{name} {kind}: expected ok at line {marks[mark]}, got " + json.dumps([(f['outcome'], f['message']) for f in at]))
            else:
                notes[f"planted {kind}: no fault, ok"] += 1
            continue
        lines = {line_of(f.get("loc")) for f in hits}
        if kind == "maxphase":  # at the local_loads into the mma's operands: the dot's line
            ok = bool(hits) and all(line in (marks["mm_dot"], marks["attn_pv_dot"]) or line is not None for line in lines)
            ok = ok and _maxphase_degrees(hits, ttgir, bad, name, notes)
        else:
            ok = marks[mark] in lines
        if not ok:
            bad.append(f"{name} {kind}: expected a {want_rule} violation at line {marks.get(mark)}; found lines {sorted(x for x in lines if x)}")
        else:
            notes[f"planted {kind}: caught"] += 1


def _maxphase_degrees(hits, ttgir, bad, name, notes):
    """With maxPhase = 1 nothing is XORed: an ldmatrix phase's 8 rows are one row of the buffer
    (R bytes) apart, and row r's slot is (r R / 16) mod 8: min(8, R / 16) rows share one (R a power
    of two >= 16). Checked wherever the model reads the load as an ldmatrix (§3.1.1)."""
    okay = True
    for f in hits:
        det = f.get("detail", {})
        if not det.get("instruction", "").startswith("ldmatrix") or not det.get("row_bytes"):
            continue
        want = min(8, det["row_bytes"] // 16)
        notes["planted maxphase: ldmatrix degrees checked against min(8, row bytes / 16)"] += 1
        if det.get("degree") != want:
            bad.append(f"{name} maxphase: {f['subject']} degree {det.get('degree')}, expected min(8, {det['row_bytes']} / 16) = {want}")
            okay = False
    return okay


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfspec", required=True)
    ap.add_argument("--seed", type=int, default=20261205)
    ap.add_argument("--count", type=int, default=96)
    ap.add_argument("--keep", help="write each kernel's TTGIR, PTX and metadata here")
    a = ap.parse_args()
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except ImportError:
        print("skipped: triton is not importable (python3 -m pip install triton)")
        return 77
    import sweep_kernels as K
    marks = marker_lines()
    rng = random.Random(a.seed)
    bad, notes = [], collections.Counter()
    compared = collections.Counter()
    done, refused = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        d = a.keep or tmp
        os.makedirs(d, exist_ok=True)
        while done < a.count:
            name, fn, sig, cx, attrs, opts, cap = draw(rng, K)
            try:
                c = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=cx, attrs=attrs), target=GPUTarget("cuda", cap, 32), options=opts)
            except Exception:  # Triton refuses the configuration (out of shared memory, an unsupported dot): drawn again
                refused += 1
                continue
            done += 1
            name = f"{name}.sm{cap}"
            path = os.path.join(d, name)
            ttgir = c.asm["ttgir"]
            with open(path + ".ttgir", "w") as f:
                f.write(ttgir)
            with open(path + ".json", "w") as f:
                json.dump({"shared": c.metadata.shared, "target": f"cuda:{cap}", "num_warps": opts["num_warps"]}, f)
            if a.keep:
                with open(path + ".ptx", "w") as f:
                    f.write(c.asm["ptx"])
            report = check_tool(a.tfspec, path + ".ttgir")
            ptx, ours = ptx_widths(c.asm["ptx"]), tfspec_widths(report)
            for key, widths in sorted(ours.items(), key=str):
                theirs = ptx.get(key, set())
                compared[key[0]] += 1
                if widths != theirs:
                    bad.append(f"{name}: line {key[1]} {key[0]}: tfspec models {sorted(widths)}, Triton's PTX has {sorted(theirs)}")
            for key, theirs in sorted(ptx.items(), key=str):  # every ldmatrix of the PTX is one tfspec models
                if key[0] == "ldmatrix" and key not in ours:
                    bad.append(f"{name}: line {key[1]}: Triton's PTX has {sorted(theirs)}, tfspec models none there")
            for f in report["findings"]:  # §3.4.1: the mask's cap is the ideal vector too; only sectors can be over
                det = f.get("detail", {})
                if f["check"] == "global" and det.get("vector_cap") == "mask":
                    spread = det["sectors"] > det["ideal_sectors"]
                    notes["global: vector capped by the mask" + (", requests spread over a thread's run (violation)" if spread else ", ok")] += 1
                    if det["vector_bits"] != det["ideal_vector_bits"] or (f["outcome"] == "violation") != spread:
                        bad.append(f"{name}: {f['subject']}: a mask-capped access: {f['outcome']}, {f['message']}")
            compare_footprint(name, report, c.metadata.shared, ttgir, bad, notes)
            check_planted(a.tfspec, d, name, ttgir, marks, bad, notes, K)
    for b in bad:
        print("differs:", b)
    print(f"kernel sweep (seed {a.seed}): {done} kernels ({refused} configurations Triton refused, drawn again); "
          f"widths compared at {compared['ld']} load, {compared['st']} store and {compared['cp']} cp.async lines, "
          f"ldmatrix at {compared['ldmatrix']} lines; {len(bad)} disagreements")
    for k, n in sorted(notes.items()):
        print(f"  {k}: {n}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
