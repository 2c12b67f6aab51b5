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
show prove injective "(M,N):(1,M)"
show prove injective "(M,N):(1,K)" --assume "K < M"
# §7.5: the same sugar materialized toward registers and toward global memory
show shard typeinfer "(2 @ m.x, 12 @ m.y, 128 @ m.t) on x=2,y=4,t=32" "(2,1536)" gmem rmem
show shard typeinfer "(2 @ m.x, 12 @ m.y, 128 @ m.t) on x=2,y=4,t=32" "(2,1536)" rmem gmem
show shard check 'shard((4,3):(0,1); S(0),S(0),P("avg"); x=2,y=2,z=1)'
# the conformance corpus against the reference itself, a short differential fuzz of the host backend
show conform --impl reference --quiet
show fuzz --backend host --seconds 3 --seed 1
# shard propagation: a Partial(sum) reaching relu, resolved by an inserted all-reduce
show propagate propagation/examples/partial_relu.json --insert-reshards
show reshard-plan "(8 @ m.x, 1024) on x=4,y=2" "(8, 1024) on x=4,y=2" "(8,1024)" --dtype bfloat16
show draw "(2,3):(3,1)" -o build/layout.svg
