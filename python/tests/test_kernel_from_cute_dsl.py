"""tfspec.kernel.from_cute_dsl (spec/CUTE_DSL.md): a CuTe DSL kernel compiled by the DSL, or the MLIR
text it dumps, checked as `tfspec kernel check --from cute-dsl` checks it. The MLIR fixtures need
no DSL; the compile itself runs in from_cute_dsl_compile.py, under a python that has the DSL
(ctest python_kernel_from_cute_dsl_compile). The error path where `cutlass` is absent runs always."""
import os
import shutil
import subprocess
import sys

import pytest

import tfspec.kernel as k

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "frontends", "cute_dsl", "tests", "fixtures")
WALK_M = "gemm_f16_128x128x32_atoms4x2_threads_walk_m.mlir"


def cli():
    path = os.environ.get("TFSPEC_CLI") or shutil.which("tfspec")
    if not path:
        pytest.skip("no tfspec command (TFSPEC_CLI unset and none on the PATH)")
    return path


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


def module():
    try:
        import tfspec._tfspec  # noqa: F401
    except ImportError as e:
        pytest.skip("from_cute_dsl runs in the compiled module, which is not importable here: %s" % e)


def command_report(name):
    r = subprocess.run([cli(), "kernel", "check", "--from", "cute-dsl", os.path.join(FIXTURES, name), "--json"],
                       capture_output=True, text=True, check=False)
    import json
    return r.returncode, json.loads(r.stdout)


def strip(report):
    return [(f["check"], f["subject"], f["outcome"], f.get("loc"), f.get("rule")) for f in report["findings"]]


def test_without_cutlass_the_error_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "cutlass", None)  # `import cutlass` now raises ImportError
    with pytest.raises(ImportError) as e:
        k.from_cute_dsl(lambda: None)
    assert "nvidia-cutlass-dsl" in str(e.value) and "from_cute_dsl" in str(e.value)


def test_the_mlir_text_in_process_is_the_commands_report():
    module()
    for name in ("elementwise_add_f16.mlir", WALK_M):
        expected_code, expected = command_report(name)
        code, report = k.from_cute_dsl(fixture(name))
        assert code == expected_code and strip(report) == strip(expected), name


def test_a_planted_coalescing_fault_is_a_violation():
    # threads (64,4):(1,64) walk M, the strided dimension of the K-major A (spec/CUTE_DSL.md §3)
    code, report = k.from_cute_dsl(fixture(WALK_M), cli=cli())
    assert code == 1
    assert any(f["outcome"] == "violation" and f["rule"] == "kernel-coalescing" for f in report["findings"])


def test_a_text_that_is_no_dump_is_refused():
    import tfspec
    module()
    with pytest.raises(tfspec.SpecError) as e:
        k.from_cute_dsl("this is PTX, not the DSL's MLIR")
    assert e.value.rule == "cute-dsl-input", e.value
