#!/usr/bin/env bash
# The test command (README): release build + every test, then the ASan+UBSan build + every test.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
echo "== release build and tests"
cmake --preset default >/dev/null
cmake --build --preset default -j "$JOBS"
ctest --preset default -j "$JOBS"
echo "== sanitizer build (ASan+UBSan) and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$JOBS"
ctest --preset asan -j "$JOBS"
