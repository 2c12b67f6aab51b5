#!/bin/sh
# ctest conform_cute_dsl: the CuTe DSL adapter (conformance/adapters/cute_dsl_adapter.py) on the
# whole corpus, the DSL's recorded departures (conformance/results/cute-dsl-xfail.txt) as expected
# failures; then the seeded algebra differential's recompute (conformance/tests/cute_dsl_cases.py
# --check: the DSL still gives the answers recorded in cute_dsl_algebra.json). The DSL
# (nvidia-cutlass-dsl, module cutlass.cute; no GPU needed) is usually in its own virtual
# environment: TFSPEC_CUTE_DSL_PYTHON names its python, else PYTHON3 is tried. Where neither can
# import cutlass.cute the test says why and exits 77 (ctest: skipped). It says which DSL it ran;
# one other than the recorded version that answers otherwise is skipped too (peer_lib.sh).
# usage: conform_cute_dsl.sh TFSPEC PYTHON3 SOURCE_DIR
tfspec=$1 python=${TFSPEC_CUTE_DSL_PYTHON:-$2} src=$3
if ! "$python" -c "import cutlass.cute" 2>/dev/null; then
  echo "SKIPPED: conform_cute_dsl: cutlass.cute is not importable by $python (python3 -m pip install nvidia-cutlass-dsl in a virtual environment, then TFSPEC_CUTE_DSL_PYTHON=VENV/bin/python; no GPU is needed)"
  exit 77
fi
. "$src/conformance/tests/peer_lib.sh"
peer_versions cute-dsl "$python" "$src" cutlass.cute nvidia-cutlass-dsl
"$tfspec" conform --impl "$python $src/conformance/adapters/cute_dsl_adapter.py" --quiet \
  --xfail "$src/conformance/results/cute-dsl-xfail.txt" || peer_verdict cute-dsl 1
if [ -f "$src/conformance/tests/cute_dsl_cases.py" ]; then
  "$python" "$src/conformance/tests/cute_dsl_cases.py" --check || peer_verdict cute-dsl 1
fi
peer_verdict cute-dsl 0
