#!/usr/bin/env bash
# The one place tfspec's dependencies are installed (Debian packages; mypy and jax from PyPI).
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
# The JAX differential's peer (issue 33, conformance/results/jax.md): jax's CPU wheels from PyPI
# into the python3 on PATH, pinned to the version the results were measured with (36 s on this
# machine kind, 2026-12-02). Optional: where pip cannot install it (no PyPI, an externally
# managed Python) the test prints why and is skipped.
if python3 -m pip install -q "jax==0.10.2" >/dev/null 2>&1; then echo "setup: jax 0.10.2 installed"; else echo "setup: jax not installed (python_jax_differential will skip)"; fi
echo "setup: dependencies installed"
