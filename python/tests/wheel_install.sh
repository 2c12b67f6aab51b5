#!/bin/sh
# ctest python_wheel_install (issue 49): the wheel as a Python user gets it, from this build at no
# compile cost. The build's component `python` (the module and the CLI, as `pip install .`
# installs them) is packed into a wheel (scripts/wheel_from_build.py), installed into a fresh
# venv with no index and no build, and checked there with nothing but the venv on the PATH (no
# compiler, no build tree): python/tests/installed_check.py. Then the same venv where libz3.so.4
# is missing (python/tests/hide_library.sh) must name the Debian package to install.
#   wheel_install.sh SOURCE BUILD WORK PYTHON CMAKE
set -eu
src=$1 build=$2 work=$3 py=$4 cmake=$5
"$py" -c "import ensurepip, tomllib" 2>/dev/null || { echo "skipped: $py cannot make a venv (apt-get install python3-venv)"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --component python --prefix "$work/stage" --strip >/dev/null
wheel=$("$py" "$src/scripts/wheel_from_build.py" --source "$src" --staged "$work/stage" --out "$work/dist")
echo "wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
"$py" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-index --no-deps --only-binary :all: --disable-pip-version-check "$wheel"
env -i HOME="$work" PATH="$work/venv/bin" /bin/sh -c 'cd / && exec python "$0"' "$src/python/tests/installed_check.py"
set +e
out=$(sh "$src/python/tests/hide_library.sh" libz3.so.4 env -i PATH="$work/venv/bin" python -c "import tfspec" 2>&1)
rc=$?
set -e
if [ $rc -eq 77 ]; then
  echo "not checked: importing without libz3.so.4 ($out)"
elif [ $rc -ne 0 ] && echo "$out" | grep -q "apt-get install libz3-4"; then
  echo "ok: without libz3.so.4, import tfspec says: $(echo "$out" | tail -1 | cut -c1-160)..."
else
  echo "FAIL: without libz3.so.4, import tfspec exited $rc and did not name libz3-4:"
  echo "$out"
  exit 1
fi
rm -rf "$work"
