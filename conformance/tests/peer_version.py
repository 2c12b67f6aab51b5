#!/usr/bin/env python3
"""The version of an optional peer as installed, for the peer tests (issue 44 item 16).

    peer_version.py MODULE [DISTRIBUTION]

Prints `DISTRIBUTION VERSION` of the package that provides MODULE: the installed distribution's
metadata (`nvidia-cutlass 4.2.0.0`, `jax 0.10.2`), else MODULE.__version__, else, for a pycute
imported from a CUTLASS checkout's python/ folder, the checkout's include/cutlass/version.h
(`cutlass-checkout 4.7.0`); `unknown` where none says. Exit 1 when MODULE cannot be imported.
"""
import importlib
import importlib.metadata
import pathlib
import re
import sys


def checkout_version(module):
    """CUTLASS_MAJOR.MINOR.PATCH of the checkout a module was imported from, or None."""
    here = pathlib.Path(getattr(module, "__file__", "") or ".").resolve()
    for up in here.parents:
        header = up / "include" / "cutlass" / "version.h"
        if header.is_file():
            text = header.read_text(errors="replace")
            parts = [re.search(r"#define CUTLASS_%s (\d+)" % k, text) for k in ("MAJOR", "MINOR", "PATCH")]
            if all(parts):
                return ".".join(p.group(1) for p in parts)
    return None


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    name = sys.argv[1]
    dist = sys.argv[2] if len(sys.argv) == 3 else name.split(".")[0]
    try:
        module = importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - any failure to import is "not installed"
        print("not importable: %s" % e)
        sys.exit(1)
    # The distribution counts only where it holds the package that was imported (a PYTHONPATH
    # checkout shadows an installed wheel).
    top = importlib.import_module(name.split(".")[0])
    where = pathlib.Path(getattr(top, "__file__", "") or "").resolve()
    try:
        files = importlib.metadata.files(dist) or []
        if any(str(f).replace("\\", "/") == top.__name__ + "/__init__.py" and pathlib.Path(str(f.locate())).resolve() == where for f in files):
            print(dist, importlib.metadata.version(dist))
            return
    except importlib.metadata.PackageNotFoundError:
        pass
    version = checkout_version(top)
    if version:
        print("cutlass-checkout", version)
    elif getattr(top, "__version__", None):
        print(dist, top.__version__)
    else:
        print(dist, "unknown")


if __name__ == "__main__":
    main()
