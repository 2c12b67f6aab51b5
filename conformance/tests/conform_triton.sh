#!/bin/sh
# ctest conform_triton: the Triton adapter on the linear-layout cases (tag `linear`), Triton's
# recorded departures (conformance/results/triton-xfail.txt) as expected failures; then the
# seeded differential of conformance/tests/triton_differential.py. Where Triton is not importable
# the test says why and exits 77 (ctest: skipped). It says which Triton it ran; one other than the
# recorded version that answers otherwise is skipped too (peer_lib.sh).
# usage: conform_triton.sh TFSPEC PYTHON3 SOURCE_DIR
tfspec=$1 python=$2 src=$3
if ! "$python" -c "from triton._C.libtriton import linear_layout" 2>/dev/null; then
  echo "SKIPPED: conform_triton: triton is not importable by $python (python3 -m pip install triton; no GPU is needed)"
  exit 77
fi
. "$src/conformance/tests/peer_lib.sh"
peer_versions triton "$python" "$src" triton triton
"$tfspec" conform --impl "$python $src/conformance/adapters/triton_adapter.py" --tag linear --quiet \
  --xfail "$src/conformance/results/triton-xfail.txt" || peer_verdict triton 1
"$python" "$src/conformance/tests/triton_differential.py" "$tfspec" --seed 1 --cases 1000
peer_verdict triton $?
