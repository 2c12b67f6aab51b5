"""The `tfspec` command that the package carries (issue 49): a wheel holds the C++ binary at
tfspec/_bin/tfspec, and pip installs the console script `tfspec` (pyproject.toml,
[project.scripts]) that runs it, so `pip install` puts the command on the environment's PATH.

command() is the tfspec a Python caller runs when it needs a subprocess: the TFSPEC environment
variable (as everywhere in the docs), else the binary this package carries, else `tfspec` on the
PATH. The module's own calls (tfspec.kernel.check included) run in-process and need none of them.
"""
import os
import shutil
import sys
from typing import NoReturn, Optional


def bundled() -> Optional[str]:
    """The tfspec binary inside this package (an installed wheel), or None (a source or build tree)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "tfspec")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def command() -> str:
    """$TFSPEC, else the bundled binary, else `tfspec` on the PATH; FileNotFoundError names all three."""
    path = os.environ.get("TFSPEC") or bundled() or shutil.which("tfspec")
    if not path:
        raise FileNotFoundError("no tfspec command: TFSPEC is unset, this tfspec package carries no binary (a build tree: "
                                "set TFSPEC=build/cli/tfspec) and there is no tfspec on the PATH")
    return path


def main() -> NoReturn:
    """The console script: replaces this process with the bundled binary (its exit code is tfspec's)."""
    path = bundled()
    if path is None:
        sys.stderr.write("tfspec: this tfspec package carries no binary (%s/_bin/tfspec is missing): reinstall it "
                         "(pip install .) or run build/cli/tfspec\n" % os.path.dirname(os.path.abspath(__file__)))
        sys.exit(127)
    sys.stdout.flush()
    os.execv(path, ["tfspec"] + sys.argv[1:])
