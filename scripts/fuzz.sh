#!/usr/bin/env bash
# scripts/fuzz.sh SECONDS [TARGET...]: builds the libFuzzer targets (preset `fuzz`, clang++) and
# runs each for SECONDS, one after the other. The seed corpus (fuzz/corpus/TARGET) is read-only;
# new inputs go to build-fuzz/corpus/TARGET, crashes to build-fuzz/artifacts/. Exit 1 on a finding.
# Without clang++ it says so and exits 0 (the fuzz targets need libFuzzer). FUZZ_SEED (default 1)
# fixes libFuzzer's seed; FUZZ_RUNS bounds the executions as well, so CI's slice is reproducible
# (FUZZ_RUNS_<target> sets one target's count: the targets that run the solver or propagate
# itself execute tens of inputs per second, not thousands).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(layout_text shard_text roundtrip serve_line propagate_program smt2_path reshard_plan_request symbolic_layout judge_reply rerun_report option_values smem_request)
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found; skipping the libFuzzer targets"
  exit 0
fi
JOBS=${JOBS:-2}
cmake --preset fuzz >/dev/null
cmake --build build-fuzz -j "$JOBS" --target "${TARGETS[@]/#/fuzz_}"
mkdir -p build-fuzz/artifacts
status=0
for t in "${TARGETS[@]}"; do
  runs_var="FUZZ_RUNS_$t"  # a slow target's own count (FUZZ_RUNS_smt2_path=2000), else FUZZ_RUNS
  runs=${!runs_var:-${FUZZ_RUNS:-}}
  mkdir -p "build-fuzz/corpus/$t"
  echo "== fuzz_$t for ${SECONDS_EACH}s"
  log="build-fuzz/fuzz_$t.log"
  if ! "build-fuzz/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -seed="${FUZZ_SEED:-1}" ${runs:+-runs=$runs} \
        -dict=fuzz/tfspec.dict -artifact_prefix="build-fuzz/artifacts/$t-" -print_final_stats=1 \
        "build-fuzz/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    echo "fuzz_$t: FINDING (see $log and build-fuzz/artifacts/)"
    tail -n 40 "$log"
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$log" || true
done
exit $status
