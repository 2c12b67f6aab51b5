"""tfspec.kernel, the pure-Python builder of kernel pipeline descriptions (spec/KERNEL.md): it
rebuilds the committed cases, and what it builds is what `tfspec kernel check` accepts."""
import copy
import json
import os
import shutil
import subprocess

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
    path = os.environ.get("TFSPEC") or shutil.which("tfspec")
    if not path:
        pytest.skip("no tfspec command (TFSPEC unset and none on the PATH)")
    return path


def module():
    try:
        import tfspec._tfspec  # noqa: F401
    except ImportError as e:
        pytest.skip("tfspec.kernel.check runs in the compiled module, which is not importable here: %s" % e)
    import tfspec
    return tfspec


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


def no_subprocess(*args, **kwargs):
    raise AssertionError("tfspec.kernel.check started a subprocess: %r" % (args,))


def test_check_runs_in_process_and_answers_as_the_command(monkeypatch):
    """Issue 49: the protocol op in the module, no subprocess; the same answers as the command."""
    module()
    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    code, report = k.check(k.sm80_gemm(128, 128, 32))
    assert code == 0 and report["result"] == "ok" and report["exit"] == 0
    broken = k.sm80_gemm(128, 128, 32, swizzle=None)
    code, report = k.check(broken)
    assert code == 1
    assert any(f["rule"] == "kernel-bank-conflict" for f in report["findings"] if f["outcome"] == "violation")
    too_big = copy.deepcopy(broken)
    too_big["stages"] = 11  # 11 stages x (2 operands x 128 x 32 x 2 bytes = 16 KiB) = 176 KiB > 164 KiB
    for code, report in (k.check(too_big, "--smem-limit", "164KiB"), k.check(too_big, "--smem-limit=167936"),
                         k.check(too_big, smem_limit="164KiB"), k.check(too_big, "--json", smem_limit=164 * 1024)):
        assert code == 1 and any(f["check"] == "footprint" and f["outcome"] == "violation" for f in report["findings"])
    code, report = k.check(too_big, smem_limit="176KiB")  # exactly the footprint: it fits
    assert not any(f["check"] == "footprint" and f["outcome"] == "violation" for f in report["findings"])
    monkeypatch.undo()
    assert k.check(broken, "--smem-limit", "164KiB") == k.check(broken, "--smem-limit", "164KiB", cli=cli())


def test_a_refused_description_raises_the_rule_in_both_paths():
    tfspec = module()
    bad = k.sm80_gemm(128, 128, 32)
    del bad["mma"]
    for kwargs in ({}, {"cli": cli()}):
        with pytest.raises(tfspec.SpecError) as e:
            k.check(bad, **kwargs)
        assert e.value.rule == "kernel-input" and "mma" in str(e.value), (kwargs, str(e.value))
    with pytest.raises(TypeError, match="--smem-limit BYTES and --draw DIR"):
        k.check(bad, "--smem-limt", "1")


def test_the_subprocess_path_honours_TFSPEC(monkeypatch, tmp_path):
    """--draw (the pictures are the command's) runs $TFSPEC, as every docs example does."""
    module()
    marker = tmp_path / "ran"
    wrapper = tmp_path / "tfspec-wrapper"
    wrapper.write_text('#!/bin/sh\necho "$@" > %s\nexec %s "$@"\n' % (marker, cli()))
    wrapper.chmod(0o755)
    monkeypatch.setenv("TFSPEC", str(wrapper))
    code, report = k.check(k.sm80_gemm(128, 128, 32), "--draw", str(tmp_path / "pictures"))
    assert code == 0 and report["result"] == "ok"
    assert marker.read_text().split()[:4] == ["kernel", "check", "-", "--json"]
    assert any(p.suffix == ".svg" for p in (tmp_path / "pictures").iterdir())


def test_no_command_anywhere_is_a_clear_error(monkeypatch, tmp_path):
    from tfspec import _cli
    monkeypatch.delenv("TFSPEC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_cli, "bundled", lambda: None)
    with pytest.raises(FileNotFoundError, match="TFSPEC"):
        _cli.command()


def test_a_missing_system_library_names_its_debian_package():
    from tfspec._loader import load_error
    said = ImportError("libz3.so.4: cannot open shared object file: No such file or directory")
    assert "needs libz3.so.4," in str(load_error(said)) and "apt-get install libz3-4" in str(load_error(said))
    assert "libz3.so.4: cannot open" in str(load_error(said))
    other = ImportError("/x/_tfspec.so: undefined symbol: foo")
    assert "undefined symbol: foo" in str(load_error(other)) and "apt-get" not in str(load_error(other))


def test_the_module_runs_every_op_the_command_serves():
    """In-process means every op: the module's registry holds each op `tfspec serve` announces in
    its handshake (spec/PROTOCOL.md), kernel.check included, so no Python call needs the command."""
    module()
    from tfspec import _tfspec
    reply = subprocess.run([cli(), "serve"], input='{"cmd":"start","protocol":1}\n{"cmd":"stop"}\n', capture_output=True, text=True,
                   check=True).stdout.splitlines()[0]
    served = set(json.loads(reply)["ops"])
    assert "kernel.check" in served
    assert served <= {op[0] for op in _tfspec._ops()}, served - {op[0] for op in _tfspec._ops()}
