#!/bin/sh
# ctest conform_jax / conform_dtensor: a shard adapter (conformance/adapters/NAME_adapter.py) on
# the corpus's shard ops, the library's recorded departures (conformance/results/NAME-xfail.txt)
# as expected failures. Where the library is not importable the test says why and exits 77
# (ctest: skipped). It says which version it ran; one other than the recorded version that
# answers otherwise is skipped too (peer_lib.sh).
# usage: conform_peer.sh TFSPEC PYTHON3 SOURCE_DIR NAME MODULE PIP_PACKAGE
tfspec=$1 python=$2 src=$3 name=$4 module=$5 package=$6
if ! "$python" -c "import $module" 2>/dev/null; then
  echo "SKIPPED: conform_$name: $module is not importable by $python ($python -m pip install $package)"
  exit 77
fi
. "$src/conformance/tests/peer_lib.sh"
peer_versions "$name" "$python" "$src" "$module" "$package"
"$tfspec" conform --impl "$python $src/conformance/adapters/${name}_adapter.py" --filter 'shard.*' --quiet \
  --xfail "$src/conformance/results/$name-xfail.txt"
peer_verdict "$name" $?
