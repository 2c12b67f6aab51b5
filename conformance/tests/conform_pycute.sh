#!/bin/sh
# ctest conform_pycute: the pycute adapter on the §1 and §3 cases, pycute's recorded departures
# (conformance/results/pycute-xfail.txt) as expected failures. pycute comes from
# TFSPEC_PYCUTE_PATH (CUTLASS's python/ folder), PYTHONPATH or an installed nvidia-cutlass wheel;
# without it the test says why and exits 77 (ctest: skipped). It says which pycute it ran; one
# other than the recorded version that answers otherwise is skipped too (peer_lib.sh).
# usage: conform_pycute.sh TFSPEC PYTHON3 SOURCE_DIR
tfspec=$1 python=$2 src=$3
if [ -n "$TFSPEC_PYCUTE_PATH" ]; then
  PYTHONPATH="$TFSPEC_PYCUTE_PATH${PYTHONPATH:+:$PYTHONPATH}"
  export PYTHONPATH
fi
if ! "$python" -c "import pycute" 2>/dev/null; then
  echo "SKIPPED: conform_pycute: pycute is not importable (set TFSPEC_PYCUTE_PATH or PYTHONPATH to a CUTLASS checkout's python/ folder, or pip install nvidia-cutlass)"
  exit 77
fi
. "$src/conformance/tests/peer_lib.sh"
peer_versions pycute "$python" "$src" pycute nvidia-cutlass
"$tfspec" conform --impl "$python $src/conformance/adapters/pycute_adapter.py" --filter §1 --filter §3 --quiet \
  --xfail "$src/conformance/results/pycute-xfail.txt"
peer_verdict pycute $?
