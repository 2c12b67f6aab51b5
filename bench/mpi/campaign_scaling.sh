#!/bin/sh
# Campaigns over MPI ranks (issue 47): `tfspec fuzz` cases per second at 1, 2 and 4 ranks, and
# what the merge costs rank 0 (the JSON report's "campaign": the wait for the other ranks after
# its own share, the merge itself, the bytes of the ranks' results); then `tfspec conform` over
# the whole corpus the same way. Usage: bench/mpi/campaign_scaling.sh build/cli/tfspec [CASES]
# On a 2-core machine 4 ranks are oversubscribed: two ranks share each core.
set -eu
TFSPEC=${1:-build/cli/tfspec}
CASES=${2:-20000}
MPI="mpiexec --allow-run-as-root --oversubscribe --bind-to none"
out=$(mktemp -d)
for op in all offsets reshard; do
  for n in 1 2 4; do
    $MPI -n $n "$TFSPEC" fuzz --backend host --seed 1 --op $op --max-cases "$CASES" --seconds 600 --quiet --json "$out/f.json" > /dev/null
    python3 - "$out/f.json" "$n" "$op" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); n = sys.argv[2]; c = j["campaign"]
print(f"fuzz op {sys.argv[3]:8} ranks {n}: {j['cases']} cases in {j['seconds']:.2f} s = {j['cases']/j['seconds']:.0f} cases/s; "
      f"rank 0 waited {c['wait_seconds']*1e3:.1f} ms, merged in {c['merge_seconds']*1e3:.2f} ms, {c['result_bytes']} B of results; "
      f"per rank {[r['cases'] for r in j['ranks']]}")
PY
  done
done
for n in 1 2 4; do
  $MPI -n $n "$TFSPEC" conform --quiet --json "$out/c.json" > /dev/null || true
  python3 - "$out/c.json" "$n" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); n = sys.argv[2]; c = j["campaign"]
print(f"conform ranks {n}: {len(j['cases'])} cases in {j['seconds']:.2f} s; rank 0 waited {c['wait_seconds']*1e3:.1f} ms, "
      f"merged in {c['merge_seconds']*1e3:.1f} ms, {c['result_bytes']} B of results")
PY
done
rm -r "$out"
