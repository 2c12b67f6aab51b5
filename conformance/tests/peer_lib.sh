# Sourced by the peer tests (conform_pycute.sh, conform_peer.sh, conform_triton.sh; issue 44
# item 16): each says which version of the peer it ran, and the version its recorded departures
# (conformance/results/NAME-xfail.txt, line `# measured-with: DIST VERSION`) were measured with.
# A run that disagrees with the record fails only for the recorded version; another version's
# answers may differ, so its test is skipped (exit 77), saying to re-measure.

# peer_versions NAME PYTHON SOURCE_DIR MODULE DIST: sets $installed and $measured, prints both.
peer_versions() {
  installed=$("$2" "$3/conformance/tests/peer_version.py" "$4" "$5") || installed="$5 unknown"
  measured=$(sed -n 's/^# measured-with: *//p' "$3/conformance/results/$1-xfail.txt" | head -n 1)
  echo "conform_$1: ran $installed (departures recorded with ${measured:-no version recorded})"
}

# peer_verdict NAME RC: exits with the test's status.
peer_verdict() {
  [ "$2" -eq 0 ] && exit 0
  if [ -n "$measured" ] && [ "$installed" != "$measured" ]; then
    echo "SKIPPED: conform_$1: $installed answers otherwise than $measured, the version conformance/results/$1.md and $1-xfail.txt record: re-measure them with it (docs/conformance.md, \"Peers and their versions\")"
    exit 77
  fi
  exit "$2"
}
