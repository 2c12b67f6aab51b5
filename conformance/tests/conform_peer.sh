#!/bin/sh
# ctest conform_jax / conform_dtensor: a shard adapter (conformance/adapters/NAME_adapter.py) on
# the corpus's shard ops, the library's recorded departures (conformance/results/NAME-xfail.txt)
# as expected failures. Where the library is not importable the test says why and exits 77
# (ctest: skipped).
# usage: conform_peer.sh TFSPEC PYTHON3 SOURCE_DIR NAME MODULE PIP_PACKAGE
tfspec=$1 python=$2 src=$3 name=$4 module=$5 package=$6
if ! "$python" -c "import $module" 2>/dev/null; then
  echo "SKIPPED: conform_$name: $module is not importable by $python ($python -m pip install $package)"
  exit 77
fi
exec "$tfspec" conform --impl "$python $src/conformance/adapters/${name}_adapter.py" --filter 'shard.*' --quiet \
  --xfail "$src/conformance/results/$name-xfail.txt"
