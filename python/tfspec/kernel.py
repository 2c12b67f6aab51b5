"""Builder for `tfspec kernel check` pipeline descriptions (spec/KERNEL.md). The builders are pure
Python; `check()` runs the protocol op `kernel.check` in-process through the compiled module (the
op `tfspec kernel check` runs), and a subprocess only for what only the command does (--draw).

    >>> import tfspec.kernel as k
    >>> p = k.sm80_gemm(128, 128, 32, stages=3, swizzle="Sw<3,3,3>")
    >>> p["A"]["s2r"]["name"]
    'SM75_U32x4_LDSM_N'

The atoms' layouts are written in elements, as spec/KERNEL.md "The atoms' layouts" derives them
from CUTLASS's traits; they are spec/kernel-atoms.json's (tests/test_kernel_builder.py), which is
checked against CuTe itself.
"""
import json
import os
import re
import subprocess
from typing import Any, Dict, List, Optional, Sequence, Tuple

# SM80 mma.sync 16x8x16, 16-bit inputs: (thread, value) -> m + 16 k, n + 8 k, m + 16 n.
SM80_16x8x16_F16 = {
    "name": "SM80_16x8x16_F16F16F16F16_TN", "shape": [16, 8, 16], "threads": 32,
    "A": "((4,8),(2,2,2)):((32,1),(16,8,128))",
    "B": "((4,8),(2,2)):((16,1),(8,64))",
    "C": "((4,8),(2,2)):((32,1),(16,8))",
}
# ldmatrix x4 over 16-bit elements: 32 row addresses of 8 elements; dst registers of 2 elements.
LDSM_X4_N = {"name": "SM75_U32x4_LDSM_N", "bits": 128, "src": "(32,8):(8,1)", "dst": "(32,(2,4)):(2,(1,64))"}
# ldmatrix x2: source threads 16..31 repeat 0..15's addresses (stride 0), which the hardware ignores.
LDSM_X2_N = {"name": "SM75_U32x2_LDSM_N", "bits": 128, "src": "((16,2),8):((8,0),1)", "dst": "(32,(2,2)):(2,(1,64))"}
LDSM_X1_N = {"name": "SM75_U32x1_LDSM_N", "bits": 128, "src": "((8,4),8):((8,0),1)", "dst": "(32,2):(2,1)"}
# The transposing ldmatrix: thread t0 + 4 t1 receives column t1 of each 8x8 matrix, rows 2 t0 + {0,1}.
LDSM_X4_T = {"name": "SM75_U16x8_LDSM_T", "bits": 128, "src": "(32,8):(8,1)", "dst": "((4,8),(2,4)):((16,1),(8,64))"}
LDSM_X2_T = {"name": "SM75_U16x4_LDSM_T", "bits": 128, "src": "((16,2),8):((8,0),1)", "dst": "((4,8),(2,2)):((16,1),(8,64))"}
LDSM_X1_T = {"name": "SM75_U16x2_LDSM_T", "bits": 128, "src": "((8,4),8):((8,0),1)", "dst": "((4,8),2):((16,1),8)"}


def sm90_wgmma_64xN(n: int) -> Dict[str, Any]:
    """wgmma 64xNx16 with A and B read from shared memory: only C is a register layout."""
    return {"name": "SM90_64x%dx16_F16F16F16_SS" % n, "shape": [64, n, 16], "threads": 128, "A": "smem", "B": "smem",
            "C": "((4,8,4),(2,2,%d)):((128,1,16),(64,8,512))" % (n // 8)}


def copy(threads: str, values: str, atom_bits: int = 128, atom: Optional[str] = None) -> Dict[str, Any]:
    """A tiled copy as CuTe's make_tiled_copy(atom, threads, values) (layouts in the notation)."""
    c: Dict[str, Any] = {"atom_bits": atom_bits, "threads": threads, "values": values}
    if atom:
        c = dict({"atom": atom}, **c)
    return c


def copy_tv(tv: str, tile: Sequence[int], atom_bits: int = 128) -> Dict[str, Any]:
    """A tiled copy given by its TV layout over a rows x cols copy tile."""
    return {"atom_bits": atom_bits, "tv": tv, "tile": list(tile)}


def k_major_copy(rows: int, bk: int, threads: int, elem_bits: int = 16, atom_bits: int = 128) -> Dict[str, Any]:
    """cp.async of atom_bits per thread, threads laid K-fastest over a K-major (rows, bk) tile."""
    per = atom_bits // elem_bits
    across = bk // per
    assert bk % per == 0 and threads % across == 0, "the K extent is not a whole number of accesses"
    down = threads // across
    return copy("(%d,%d):(%d,1)" % (down, across, across), "(1,%d)" % per, atom_bits, "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>")


def tma_load(swizzle: str, box: Sequence[int]) -> Dict[str, Any]:
    """A TMA load of the operand's tile (SM90): the tensor map's swizzle mode ("none", "32B", "64B",
    "128B") and its box [rows, cols] in the tile's order (spec/KERNEL.md "TMA load")."""
    return {"atom": "SM90_TMA_LOAD", "tma": {"swizzle": swizzle, "box": list(box)}}


def staged_epilogue(epilogue: Dict[str, Any], smem: str, r2s_bits: int) -> Dict[str, Any]:
    """The epilogue copy through a staging buffer: its (BM, BN) layout and the bits of one
    register-to-shared store of the accumulators."""
    return dict(epilogue, smem=smem, r2s_bits=r2s_bits)


def k_major_smem(rows: int, bk: int, swizzle: Optional[str] = None) -> str:
    """One stage of a K-major (rows, bk) tile, optionally swizzled: `Sw<3,3,3> o 0 o (rows,bk):(bk,1)`."""
    plain = "(%d,%d):(%d,1)" % (rows, bk, bk)
    return "%s o 0 o %s" % (swizzle, plain) if swizzle else plain


def pipeline(name: str, arch: str, threads: int, tile: Sequence[int], stages: int, a: Dict[str, Any], b: Dict[str, Any],
             mma: Dict[str, Any], epilogue: Optional[Dict[str, Any]] = None, bits: Tuple[int, int, int] = (16, 16, 16),
             assume: Sequence[str] = (),
             global_layouts: Tuple[str, str, str] = ("(M,K):(K,1)", "(N,K):(K,1)", "(M,N):(N,1)")) -> Dict[str, Any]:
    """The whole description; a and b are {"g2s", "smem", "s2r"?} dicts."""
    d: Dict[str, Any] = {"name": name, "arch": arch, "threads": threads, "tile": list(tile), "stages": stages,
         "bits": {"A": bits[0], "B": bits[1], "C": bits[2]},
         "global": {"A": global_layouts[0], "B": global_layouts[1], "C": global_layouts[2]},
         "assume": list(assume), "A": a, "B": b, "mma": mma}
    if epilogue:
        d["epilogue"] = epilogue
    return d


def sm80_gemm(bm: int, bn: int, bk: int, stages: int = 3, swizzle: Optional[str] = "Sw<3,3,3>", s2r: Dict[str, Any] = LDSM_X4_N,
              warps: Tuple[int, int] = (2, 2), name: Optional[str] = None) -> Dict[str, Any]:
    """An SM80 F16 GEMM: cp.async 128-bit K-major copies, ldmatrix, the 16x8x16 MMA on warps[0] x
    warps[1] warps with the permutation (16 warps[0], 16 warps[1], 16), K-major shared memory
    swizzled by `swizzle` (None: unswizzled), a 128-bit epilogue of 8 threads a row."""
    threads = 32 * warps[0] * warps[1]
    mma = dict(SM80_16x8x16_F16, atoms="(%d,%d,1)" % warps, permutation=[16 * warps[0], 16 * warps[1], 16])

    def operand(rows: int) -> Dict[str, Any]:
        return {"g2s": k_major_copy(rows, bk, threads), "smem": k_major_smem(rows, bk, swizzle), "s2r": dict(s2r)}

    epilogue = copy("(%d,8):(8,1)" % (threads // 8), "(1,8)", 128, "UniversalCopy<uint128_t>")
    return pipeline(name or "sm80_f16_%dx%dx%d" % (bm, bn, bk), "sm80", threads, (bm, bn, bk), stages, operand(bm), operand(bn), mma,
                    epilogue, assume=["M %% %d == 0" % bm, "N %% %d == 0" % bn, "K %% %d == 0" % bk])


def check(description: Dict[str, Any], *args: str, cli: Optional[str] = None,
          smem_limit: Optional[Any] = None) -> Tuple[int, Optional[Dict[str, Any]]]:
    """Checks the description as `tfspec kernel check - --json ARGS` does; returns (exit code, report).

    The exit code is the command's (0 every check holds, 1 a violation, 2 a condition neither proved
    nor refuted) and the report its --json object. ARGS are the command's options: `--smem-limit X`
    (or smem_limit=X: bytes, or "227KiB") runs in-process through the module's protocol op
    `kernel.check`; `--draw DIR` (pictures) or cli= runs the command as a subprocess: cli, else the
    TFSPEC environment variable, else the tfspec binary the installed package carries, else `tfspec`
    on the PATH. A description the checker refuses (the command's exit 3) raises tfspec.SpecError."""
    options = _options(args)
    if smem_limit is not None:
        options["smem_limit"] = smem_limit
    if cli is not None or "draw" in options:
        return _run_command(description, args if smem_limit is None else (*args, "--smem-limit", str(smem_limit)), cli)
    from . import _tfspec
    op_args: Dict[str, Any] = {"pipeline": description}
    if "smem_limit" in options:
        op_args["smem_limit"] = options["smem_limit"]  # bytes or "227KiB", read as --smem-limit reads it
    report: Dict[str, Any] = json.loads(_tfspec._call_json("kernel.check", json.dumps(op_args)))
    return int(report["exit"]), report


def _options(args: Sequence[str]) -> Dict[str, Any]:
    """The command's options in ARGS ({'smem_limit': ..., 'draw': ...}); `--json` is implied."""
    out: Dict[str, Any] = {}
    words = list(args)
    while words:
        word = words.pop(0)
        name, eq, value = word.partition("=")
        if name == "--json":
            continue
        if name not in ("--smem-limit", "--draw"):
            raise TypeError("tfspec.kernel.check: unknown option %r (it takes --smem-limit BYTES and --draw DIR)" % word)
        if not eq:
            if not words:
                raise TypeError("tfspec.kernel.check: %s needs a value" % name)
            value = words.pop(0)
        out[name[2:].replace("-", "_")] = value
    return out


def _run_command(description: Dict[str, Any], args: Sequence[str], cli: Optional[str]) -> Tuple[int, Optional[Dict[str, Any]]]:
    """`tfspec kernel check - --json ARGS` as a subprocess (cli, else tfspec._cli.command())."""
    from ._cli import command
    cmd: List[str] = [cli or command(), "kernel", "check", "-", "--json", *args]
    r = subprocess.run(cmd, input=json.dumps(description), capture_output=True, text=True, check=False)
    if r.returncode >= 3 and not r.stdout.strip():
        raise _refusal(r.stderr, r.returncode)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None)


def from_triton(compiled: Any, *args: str, cli: Optional[str] = None) -> Tuple[int, Optional[Dict[str, Any]]]:
    """Checks a kernel Triton compiled (spec/TRITON.md): `compiled` is what `triton.compile(...)`
    returns (its `asm["ttgir"]` and `metadata.shared` are read; no GPU is needed), or the TTGIR text
    itself. Runs in-process through the module's protocol op `kernel.check` (its `ttgir` form), as
    `tfspec kernel check --from triton FILE --json` does; ARGS (`--smem-limit X`) as for check().
    With cli= it runs that command as a subprocess instead. Returns (exit code, report); a TTGIR the
    reader refuses raises tfspec.SpecError."""
    import tempfile
    if isinstance(compiled, str):
        ttgir, shared = compiled, None
    else:
        ttgir = compiled.asm["ttgir"]
        shared = getattr(getattr(compiled, "metadata", None), "shared", None)
    if cli is None:
        options = _options(args)
        if "draw" in options:
            raise TypeError("tfspec.kernel.from_triton: --draw is not available for a Triton kernel")
        from . import _tfspec
        op_args: Dict[str, Any] = {"ttgir": ttgir}
        if shared is not None:
            op_args["shared"] = int(shared)
        if "smem_limit" in options:
            op_args["smem_limit"] = options["smem_limit"]
        report: Dict[str, Any] = json.loads(_tfspec._call_json("kernel.check", json.dumps(op_args)))
        return int(report["exit"]), report
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kernel.ttgir")
        with open(path, "w") as f:
            f.write(ttgir)
        if shared is not None:
            with open(os.path.join(d, "kernel.json"), "w") as f:
                json.dump({"shared": int(shared)}, f)
        from ._cli import command
        cmd = [cli or command(), "kernel", "check", "--from", "triton", path, "--json", *args]
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode >= 3 and not r.stdout.strip():
        raise _refusal(r.stderr, r.returncode)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None)


def from_cute_dsl(jit_function: Any, *fake_args: Any, cli: Optional[str] = None) -> Tuple[int, Optional[Dict[str, Any]]]:
    """Checks a kernel the CuTe DSL compiles (spec/CUTE_DSL.md): `jit_function` is a `@cute.jit`
    function and `fake_args` its arguments for `cute.compile` (fake tensors from
    `cutlass.cute.runtime.make_fake_compact_tensor`: no GPU is needed), or `jit_function` is the
    MLIR text itself. The DSL compiles it with its raw IR kept (CUTE_DSL_KEEP=ir-debug) into a
    temporary CUTE_DSL_DUMP_DIR; the dump is checked in-process through the module's protocol op
    `kernel.check` (its `cute_dsl` form), as `tfspec kernel check --from cute-dsl DUMP.mlir --json`
    does, or by that command when cli= is given. Returns (exit code, report). Raises ImportError
    naming the package where `cutlass` is not importable, and tfspec.SpecError for a dump the
    reader refuses (cute-dsl-input)."""
    import tempfile
    if isinstance(jit_function, str):
        mlir = jit_function
    else:
        with tempfile.TemporaryDirectory() as d:
            mlir = _cute_dsl_dump(jit_function, fake_args, d)
    if cli is None:
        from . import _tfspec
        report: Dict[str, Any] = json.loads(_tfspec._call_json("kernel.check", json.dumps({"cute_dsl": mlir})))
        return int(report["exit"]), report
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kernel.mlir")
        with open(path, "w") as f:
            f.write(mlir)
        from ._cli import command
        r = subprocess.run([cli or command(), "kernel", "check", "--from", "cute-dsl", path, "--json"],
                           capture_output=True, text=True, check=False)
    if r.returncode >= 3 and not r.stdout.strip():
        raise _refusal(r.stderr, r.returncode)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None)


def _cute_dsl_dump(jit_function: Any, fake_args: Sequence[Any], folder: str) -> str:
    """cute.compile(jit_function, *fake_args) with the raw IR dumped into folder; its text. The DSL
    reads CUTE_DSL_KEEP / CUTE_DSL_DUMP_DIR when it is imported, so the same two settings are set
    on its environment manager for this one compile (and restored)."""
    import importlib
    try:  # by name: the DSL is optional, and has no type stubs
        cute: Any = importlib.import_module("cutlass.cute")
        dsl: Any = importlib.import_module("cutlass.cutlass_dsl.cutlass").CuTeDSL
    except ImportError as e:
        raise ImportError("tfspec.kernel.from_cute_dsl compiles with the CuTe DSL, and `cutlass` is not importable "
                          "(%s): python3 -m pip install nvidia-cutlass-dsl (no GPU is needed), or pass the MLIR "
                          "text a CUTE_DSL_KEEP=ir-debug dump holds" % e) from e
    envar = dsl._get_dsl().envar
    saved = (envar.keep_ir, envar.dump_dir)
    envar.keep_ir, envar.dump_dir = True, folder
    try:
        cute.compile(jit_function, *fake_args)
    finally:
        envar.keep_ir, envar.dump_dir = saved
    dumps = sorted(f for f in os.listdir(folder) if f.endswith(".mlir"))
    if len(dumps) != 1:
        raise RuntimeError("tfspec.kernel.from_cute_dsl: the DSL wrote %d .mlir dumps (%s), expected one"
                           % (len(dumps), ", ".join(dumps) or "none"))
    with open(os.path.join(folder, dumps[0])) as f:
        return f.read()


def _refusal(stderr: str, code: int) -> Exception:
    """The command's `error: [RULE §N] message` as the tfspec.SpecError the in-process call raises."""
    m = re.search(r"error: \[(\S+) (\S+)\] (.*)", stderr)
    try:
        from ._tfspec import SpecError
    except ImportError:
        return RuntimeError("tfspec kernel check exited %d: %s" % (code, stderr.strip()))
    err = SpecError(stderr.strip() if not m else "[%s %s] %s" % m.groups())
    err.rule, err.clause, err.message = (m.group(1), m.group(2), m.group(3)) if m else ("", "", stderr.strip())
    err.kind = "input"
    return err
