"""tfspec.kernel, the pure-Python builder of kernel pipeline descriptions (spec/KERNEL.md): it
rebuilds the committed cases, and what it builds is what `tfspec kernel check` accepts."""
import copy
import json
import os
import shutil

import pytest

import tfspec.kernel as k

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def case(name):
    with open(os.path.join(ROOT, "docs", "kernels", name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def test_builds_the_passing_sm80_case():
    assert k.sm80_gemm(128, 128, 32, stages=3) == case("sm80_f16_128x128x32")


def test_builds_the_unswizzled_and_transposed_cases():
    assert k.sm80_gemm(128, 128, 32, swizzle=None, name="sm80_f16_unswizzled") == case("sm80_f16_unswizzled")
    built = k.sm80_gemm(128, 128, 32, name="sm80_f16_ldmatrix_trans")
    built["A"]["s2r"] = dict(k.LDSM_X4_T)
    assert built == case("sm80_f16_ldmatrix_trans")


def test_wgmma_layout_of_c():
    assert k.sm90_wgmma_64xN(128)["C"] == case("sm90_wgmma_128b")["mma"]["C"]


def test_builds_the_tma_and_staging_cases():
    tma = case("sm90_wgmma_tma")
    assert tma["A"]["g2s"] == k.tma_load("128B", [128, 64]) == tma["B"]["g2s"]
    built = k.sm80_gemm(128, 128, 32, name="sm80_f16_epilogue_smem")
    built["epilogue"] = k.staged_epilogue(built["epilogue"], "Sw<3,3,4> o 0 o (128,128):(128,1)", 32)
    assert built == case("sm80_f16_epilogue_smem")


def test_atoms_are_the_catalogues():
    """The builder's atoms are spec/kernel-atoms.json's entries (which kernel_cute_atoms checks against CuTe)."""
    with open(os.path.join(ROOT, "spec", "kernel-atoms.json"), encoding="utf-8") as f:
        atoms = json.load(f)
    mma = atoms["mma"][k.SM80_16x8x16_F16["name"]]
    assert {op: k.SM80_16x8x16_F16[op] for op in "ABC"} == {op: mma[op] for op in "ABC"}
    assert k.SM80_16x8x16_F16["shape"] == mma["shape"]
    for atom in (k.LDSM_X1_N, k.LDSM_X2_N, k.LDSM_X4_N, k.LDSM_X1_T, k.LDSM_X2_T, k.LDSM_X4_T):
        assert {key: atom[key] for key in ("bits", "src", "dst")} == atoms["copy"][atom["name"]], atom["name"]
    for n in (8, 16, 64, 128, 256):
        assert k.sm90_wgmma_64xN(n)["C"] == atoms["mma"]["SM90_64x%dx16_F16F16F16_SS" % n]["C"]


def cli():
    path = os.environ.get("TFSPEC_CLI") or shutil.which("tfspec")
    if not path:
        pytest.skip("no tfspec command (TFSPEC_CLI unset and none on the PATH)")
    return path


def test_check_runs_the_command():
    code, report = k.check(k.sm80_gemm(128, 128, 32), cli=cli())
    assert code == 0 and report["result"] == "ok"
    broken = k.sm80_gemm(128, 128, 32, swizzle=None)
    code, report = k.check(broken, cli=cli())
    assert code == 1
    assert any(f["rule"] == "kernel-bank-conflict" for f in report["findings"] if f["outcome"] == "violation")
    too_big = copy.deepcopy(broken)
    too_big["stages"] = 11  # 11 x 16 KiB = 176 KiB > 164 KiB
    code, report = k.check(too_big, "--smem-limit", "164KiB", cli=cli())
    assert any(f["check"] == "footprint" and f["outcome"] == "violation" for f in report["findings"])
