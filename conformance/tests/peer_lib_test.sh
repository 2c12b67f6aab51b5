#!/bin/sh
# ctest peer_versions (issue 44 item 16): the peer tests' version check (peer_lib.sh) on a fake
# peer. It says the version it ran and the recorded one; a disagreeing run fails for the recorded
# version, is skipped (77) for another, and passes when it agrees; a peer without a version says so.
# usage: peer_lib_test.sh PYTHON3 SOURCE_DIR
python=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/conformance/tests" "$tmp/conformance/results" "$tmp/py/fakepeer"
cp "$src/conformance/tests/peer_lib.sh" "$src/conformance/tests/peer_version.py" "$tmp/conformance/tests/"
printf '# recorded departures\n# measured-with: fakepeer 1.0\nsome-case\n' > "$tmp/conformance/results/fake-xfail.txt"
PYTHONPATH="$tmp/py"
export PYTHONPATH
. "$tmp/conformance/tests/peer_lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

echo '__version__ = "1.0"' > "$tmp/py/fakepeer/__init__.py"
said=$(peer_versions fake "$python" "$tmp" fakepeer fakepeer)
[ "$said" = "conform_fake: ran fakepeer 1.0 (departures recorded with fakepeer 1.0)" ] || fail "said: $said"
peer_versions fake "$python" "$tmp" fakepeer fakepeer > /dev/null
(peer_verdict fake 0 > /dev/null); [ $? -eq 0 ] || fail "an agreeing run of the recorded version does not pass"
(peer_verdict fake 1 > /dev/null); [ $? -eq 1 ] || fail "a disagreeing run of the recorded version does not fail"

echo '__version__ = "2.0"' > "$tmp/py/fakepeer/__init__.py"
peer_versions fake "$python" "$tmp" fakepeer fakepeer > /dev/null
[ "$installed" = "fakepeer 2.0" ] || fail "installed: $installed"
out=$(peer_verdict fake 1); rc=$?
[ $rc -eq 77 ] || fail "a disagreeing run of another version exits $rc, not 77 (skipped)"
case "$out" in *"fakepeer 2.0 answers otherwise than fakepeer 1.0"*"re-measure"*) ;; *) fail "skip reason: $out" ;; esac
(peer_verdict fake 0 > /dev/null); [ $? -eq 0 ] || fail "an agreeing run of another version does not pass"

echo '' > "$tmp/py/fakepeer/__init__.py"
said=$(peer_versions fake "$python" "$tmp" fakepeer fakepeer)
[ "$said" = "conform_fake: ran fakepeer unknown (departures recorded with fakepeer 1.0)" ] || fail "said: $said"
echo "peer_versions: ok"
