#!/usr/bin/env python3
"""tfspec.kernel.from_cute_dsl compiling with the CuTe DSL itself (spec/CUTE_DSL.md; no GPU): the
fixture kernels of frontends/cute_dsl/tests/fixtures/kernels.py compiled on fake tensors, checked
in-process, must give the report `tfspec kernel check --from cute-dsl` gives on the committed
dumps (which regen.py made with the same DSL). Run under a python with the DSL and build/python
on its path; exit 77 (skipped), saying why, where `cutlass` or the compiled module is absent.

    PYTHONPATH=build/python VENV/bin/python python/tests/from_cute_dsl_compile.py TFSPEC
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "frontends", "cute_dsl", "tests", "fixtures")


def main(tfspec_cli):
    try:
        import cutlass
        import cutlass.cute as cute
        from cutlass.cute.runtime import make_fake_compact_tensor
    except ImportError as e:
        print("SKIPPED: from_cute_dsl_compile: cutlass is not importable by %s (%s); set TFSPEC_CUTE_DSL_PYTHON "
              "to a virtual environment's python with nvidia-cutlass-dsl" % (sys.executable, e))
        return 77
    try:
        import tfspec.kernel as k
        import tfspec._tfspec  # noqa: F401
    except ImportError as e:
        print("SKIPPED: from_cute_dsl_compile: the compiled tfspec module is not importable by %s (%s)" % (sys.executable, e))
        return 77
    sys.path.insert(0, FIXTURES)
    import kernels
    t = lambda *shape: make_fake_compact_tensor(cutlass.Float16, shape, stride_order=(1, 0), assumed_align=16)
    m, n = cute.sym_int(), cute.sym_int(divisibility=8)
    cases = {"elementwise_add_f16": (kernels.elementwise_add, (t(m, n), t(m, n), t(m, n)))}
    bm, bn, bk = 128, 128, 32
    m, n, kk = cute.sym_int(divisibility=bm), cute.sym_int(divisibility=bn), cute.sym_int(divisibility=bk)
    cases["gemm_f16_128x128x32_atoms4x2_threads_walk_m"] = (
        kernels.gemm_factory(bm, bn, bk, 4, 2, (3, 3, 3), True), (t(m, kk), t(n, kk), t(m, n)))
    strip = lambda r: [(f["check"], f["subject"], f["outcome"], f.get("rule")) for f in r["findings"]]
    failed = 0
    for name, (fn, args) in cases.items():
        code, report = k.from_cute_dsl(fn, *args)
        r = subprocess.run([tfspec_cli, "kernel", "check", "--from", "cute-dsl", os.path.join(FIXTURES, name + ".mlir"), "--json"],
                           capture_output=True, text=True, check=False)
        expected = json.loads(r.stdout)
        same = code == r.returncode and strip(report) == strip(expected)
        print("from_cute_dsl_compile: %s: exit %d, %d findings, %s the command's report on the committed dump"
              % (name, code, len(report["findings"]), "as" if same else "NOT as"))
        failed += not same
    walk_m = k.from_cute_dsl(*cases["gemm_f16_128x128x32_atoms4x2_threads_walk_m"][:1],
                             *cases["gemm_f16_128x128x32_atoms4x2_threads_walk_m"][1])[1]
    if not any(f["outcome"] == "violation" and f.get("rule") == "kernel-coalescing" for f in walk_m["findings"]):
        print("from_cute_dsl_compile: the planted threads-walk-M fault is not a kernel-coalescing violation")
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
