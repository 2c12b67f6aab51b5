#!/usr/bin/env bash
# Newcomer command: install dependencies, build what the demo and the Python module need (the
# tfspec binary and tfspec._tfspec; tests and benchmarks build in scripts/test.sh), run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default >/dev/null
targets=(tfspec)
if cmake --build --preset default --target help | grep -q '^tfspec_python:'; then targets+=(tfspec_python); fi
cmake --build --preset default -j "${JOBS:-2}" --target "${targets[@]}"
bash scripts/demo.sh
