#!/usr/bin/env bash
# The one place tfspec's dependencies are installed (Debian packages only).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config \
  libgtest-dev libgmock-dev googletest librapidcheck-dev \
  libz3-dev z3 cvc5 libbenchmark-dev nlohmann-json3-dev libcli11-dev python3 \
  libxml2-dev librsvg2-bin \
  libopenmpi-dev openmpi-bin \
  pybind11-dev python3-pybind11 python3-dev python3-pytest python3-hypothesis python3-venv \
  clang libclang-rt-14-dev >/dev/null
# Python tooling from PyPI (issue 31): mypy for the typing test, into the python3 on the PATH
# (pyenv's; Debian's refuses pip, PEP 668). A few seconds; the test is skipped where it is absent.
if python3 -m pip --version >/dev/null 2>&1 && ! python3 -c "import mypy" 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check mypy >/dev/null 2>&1 || echo "setup: mypy not installed (python_mypy_strict will be skipped)"
fi
echo "setup: dependencies installed"
