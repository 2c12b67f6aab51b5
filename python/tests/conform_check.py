#!/usr/bin/env python3
"""Runs `tfspec conform --quiet --impl ADAPTER ARGS...` and checks its exit code (ctest: the
example adapter on the adapter base passes its ops, and its planted bug fails the run).

    conform_check.py EXPECTED_EXIT TFSPEC ADAPTER_COMMAND [conform args...]
"""
import subprocess
import sys


def main():
    expected, tfspec, impl, rest = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    cmd = [tfspec, "conform", "--quiet", "--impl", impl] + rest
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print(run.stdout[-3000:] + run.stderr[-3000:])
    if run.returncode != expected:
        print("FAIL: %s exited %d, expected %d" % (" ".join(cmd), run.returncode, expected))
        return 1
    totals = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("total")]
    if not totals:
        print("FAIL: no totals line in the report")
        return 1
    passed, failed, errored = (int(x) for x in totals[-1][:3])
    # an honest run passes cases and fails none; the planted bug fails cases; neither crashes
    if passed == 0 or errored or (failed > 0) != (expected == 1):
        print("FAIL: pass %d fail %d errored %d does not fit exit %d" % (passed, failed, errored, expected))
        return 1
    print("ok: exit %d as expected" % expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
