#!/usr/bin/env bash
# The test command (README): release build + every test, then the ASan+UBSan build + every test.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
echo "== release build and tests"
cmake --preset default -DTFSPEC_WERROR=ON >/dev/null
cmake --build --preset default -j "$JOBS"
ctest --preset default -j "$JOBS"
echo "== sanitizer build (ASan+UBSan) and tests"
cmake --preset asan -DTFSPEC_WERROR=ON >/dev/null
cmake --build --preset asan -j "$JOBS"
ctest --preset asan -j "$JOBS"
if command -v clang++ >/dev/null; then
  echo "== libFuzzer targets, a fixed-seed slice of ${FUZZ_RUNS:-20000} runs each (fuzz/RESULTS.md)"
  FUZZ_RUNS=${FUZZ_RUNS:-20000} scripts/fuzz.sh "${FUZZ_SECONDS:-120}"  # the run count bounds it; the time only caps a slow machine
fi
