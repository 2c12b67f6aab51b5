#!/usr/bin/env bash
# Newcomer command: install dependencies, build, and run tfspec on built-in examples.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "${JOBS:-2}"
bash scripts/demo.sh
