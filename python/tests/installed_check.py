"""Run by python/tests/wheel_install.sh inside a venv that holds only the installed tfspec wheel,
with nothing but the venv's bin/ on the PATH (no compiler, no build tree, no TFSPEC): what a
Python user gets from `pip install` (issue 49). Exit 0 when every check holds."""
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile

import tfspec
import tfspec.kernel as k
from tfspec import _cli

venv = sys.prefix
assert tfspec.__file__.startswith(venv), "tfspec imported from %s, not from the venv %s" % (tfspec.__file__, venv)
assert shutil.which("cc") is None and shutil.which("c++") is None, "a compiler is on the PATH: not the bare venv this checks"
assert "TFSPEC" not in os.environ

# The command is on the venv's PATH and is this package's version (CMakeLists.txt's project()).
command = shutil.which("tfspec")
assert command == os.path.join(venv, "bin", "tfspec"), command
out = subprocess.run(["tfspec", "--version"], capture_output=True, text=True, check=True).stdout.split()
assert out[:2] == ["tfspec", tfspec.__version__], (out, tfspec.__version__)
assert importlib.metadata.version("tfspec") == tfspec.__version__
# The console script runs the bundled binary: a command's answer and exit code come through.
# complement (§2.4) of 4:1 in 8: the positions 4..7, i.e. 2:4 (hand-derived).
done = subprocess.run(["tfspec", "layout", "complement", "4:1", "8"], capture_output=True, text=True)
assert done.returncode == 0 and done.stdout.strip().splitlines()[-1] == "2:4", (done.returncode, done.stdout, done.stderr)
assert subprocess.run(["tfspec", "no-such-command"], capture_output=True).returncode == 3
assert _cli.command() == _cli.bundled() == os.path.join(os.path.dirname(tfspec.__file__), "_bin", "tfspec")


def no_subprocess(*args, **kwargs):
    raise AssertionError("tfspec.kernel.check started a subprocess: %r" % (args,))


# tfspec.kernel.check in-process: the passing SM80 case (docs/kernels/sm80_f16_128x128x32.json's
# committed outcome) and its unswizzled twin, whose ldmatrix reads conflict (spec/KERNEL.md).
real_popen, subprocess.Popen = subprocess.Popen, no_subprocess
try:
    code, report = k.check(k.sm80_gemm(128, 128, 32))
    assert code == 0 and report["result"] == "ok", (code, report)
    code, report = k.check(k.sm80_gemm(128, 128, 32, swizzle=None))
    assert code == 1 and any(f.get("rule") == "kernel-bank-conflict" for f in report["findings"]), code
finally:
    subprocess.Popen = real_popen
# Where a subprocess remains (--draw: the pictures are the command's), it is the bundled binary.
with tempfile.TemporaryDirectory() as pictures:
    code, report = k.check(k.sm80_gemm(128, 128, 32), "--draw", pictures)
    assert code == 0 and report["result"] == "ok" and any(f.endswith(".svg") for f in os.listdir(pictures)), os.listdir(pictures)
print("ok: the installed wheel: tfspec %s on the PATH, kernel.check in-process, --draw through the bundled binary"
      % tfspec.__version__)
print(json.dumps({"module": tfspec.__file__, "command": command}))
