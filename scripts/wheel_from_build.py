#!/usr/bin/env python3
"""Packs a wheel from a CMake build's installed component `python` and python/tfspec, as
`pip wheel .` (scikit-build-core, pyproject.toml) packs it, without building anything again:

    cmake --install build --component python --prefix STAGE --strip
    python3 scripts/wheel_from_build.py --source . --staged STAGE --out DIST

The name, the version (pyproject's regex over CMakeLists.txt) and the console scripts come from
pyproject.toml; the tag is this interpreter's. ctest python_wheel_install uses it to check the
wheel's layout and entry point in a fresh venv at no build cost (issue 49); the real `pip install .`
is measured by hand (docs/python.md, "Installing into an environment").
"""
import argparse
import base64
import hashlib
import os
import re
import sys
import sysconfig
import tomllib
import zipfile


def metadata(source):
    with open(os.path.join(source, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)
    p = project["project"]
    rule = project["tool"]["scikit-build"]["metadata"]["version"]
    with open(os.path.join(source, rule["input"]), encoding="utf-8") as f:
        version = re.search(rule["regex"], f.read()).group("value")
    return p["name"], version, p.get("scripts", {})


def package_files(source, staged):
    """{path in the wheel: file on disk}: python/tfspec (wheel.packages), then the staged component."""
    out = {}
    for root, top in ((os.path.join(source, "python"), "tfspec"), (staged, "tfspec")):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            for f in files:
                full = os.path.join(d, f)
                out[os.path.relpath(full, root).replace(os.sep, "/")] = full
    return out


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True)
    ap.add_argument("--staged", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    name, version, scripts = metadata(a.source)
    files = package_files(a.source, a.staged)
    if not any(p.startswith("tfspec/_tfspec") for p in files) or "tfspec/_bin/tfspec" not in files:
        sys.exit("wheel_from_build: %s holds no tfspec/_tfspec module or tfspec/_bin/tfspec (cmake --install --component python)" % a.staged)
    py = "cp%d%d" % sys.version_info[:2]  # the module's ABI: this interpreter's (CPython)
    tag = "%s-%s-%s" % (py, py, sysconfig.get_platform().replace("-", "_").replace(".", "_"))
    info = "%s-%s.dist-info" % (name, version)
    generated = {
        info + "/METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version),
        info + "/WHEEL": "Wheel-Version: 1.0\nGenerator: tfspec wheel_from_build\nRoot-Is-Purelib: false\nTag: %s\n" % tag,
        info + "/entry_points.txt": "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in scripts.items()),
    }
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "%s-%s-%s.whl" % (name, version, tag))
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, full in sorted(files.items()):
            with open(full, "rb") as f:
                data = f.read()
            zi = zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (os.stat(full).st_mode & 0o777 | 0o100000) << 16  # pip keeps the executable bit
            z.writestr(zi, data, zipfile.ZIP_DEFLATED)
            record.append("%s,%s,%d" % (arc, digest(data), len(data)))
        for arc, text in generated.items():
            z.writestr(arc, text)
            record.append("%s,%s,%d" % (arc, digest(text.encode()), len(text.encode())))
        record.append(info + "/RECORD,,")
        z.writestr(info + "/RECORD", "\n".join(record) + "\n")
    print(path)


if __name__ == "__main__":
    main()
