#!/usr/bin/env bash
# Built-in examples of each job; prints each command before its output.
set -uo pipefail
cd "$(dirname "$0")/.."
T=./build/cli/tfspec
show() { echo "\$ tfspec $*"; "$T" "$@"; echo "  (exit $?)"; echo; }
show layout composition "(4,8):(8,1)" "(2,2):(1,4)"
show layout composition "(6,2):(1,7)" "(3,2):(2,3)"
show layout check "(2,4):(1,1)"
show layout logical_divide "(4,2,3):(2,1,8)" "4:2"
if "$T" prove --help >/dev/null 2>&1; then
  show prove injective "(M,N):(1,M)"
  show prove injective "(M,N):(1,K)" --assume "K < M"
fi
if "$T" shard --list 2>/dev/null | grep -q typeinfer; then
  "$T" shard --list
fi
