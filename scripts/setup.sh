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
  pybind11-dev python3-pybind11 python3-dev python3-pytest python3-venv \
  clang libclang-rt-14-dev >/dev/null
echo "setup: dependencies installed"
