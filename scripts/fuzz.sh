#!/usr/bin/env bash
# scripts/fuzz.sh SECONDS [TARGET...]: builds the libFuzzer targets in the sanitizer build (preset
# `asan`, clang++, build-asan/: the build scripts/test.sh also runs the sanitizer tests in) and
# runs each for SECONDS, one after the other; no TARGET: every target fuzz/CMakeLists.txt defines
# (build-asan/fuzz/targets.txt). The seed corpus (fuzz/corpus/TARGET) is read-only; new inputs go
# to build-asan/fuzz-corpus/TARGET, crashes to build-asan/fuzz-artifacts/. Exit 1 on a finding.
# Without clang++ it says so and exits 0 (the fuzz targets need libFuzzer). FUZZ_SEED (default 1)
# fixes libFuzzer's seed; FUZZ_RUNS bounds the executions as well, so CI's slice is reproducible
# (FUZZ_RUNS_<target> sets one target's count: the targets that run the solver or propagate
# itself execute tens of inputs per second, not thousands).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
TARGETS=("$@")
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found; skipping the libFuzzer targets"
  exit 0
fi
JOBS=${JOBS:-2}
B=build-asan
cmake --preset asan >/dev/null  # keeps the cache's other settings (scripts/test.sh: -DTFSPEC_WERROR=ON)
[ ${#TARGETS[@]} -eq 0 ] && mapfile -t TARGETS <"$B/fuzz/targets.txt"
cmake --build "$B" -j "$JOBS" --target "${TARGETS[@]/#/fuzz_}"
mkdir -p "$B/fuzz-artifacts"
status=0
for t in "${TARGETS[@]}"; do
  runs_var="FUZZ_RUNS_$t"  # a slow target's own count (FUZZ_RUNS_smt2_path=2000), else FUZZ_RUNS
  runs=${!runs_var:-${FUZZ_RUNS:-}}
  mkdir -p "$B/fuzz-corpus/$t"
  echo "== fuzz_$t for ${SECONDS_EACH}s"
  log="$B/fuzz/fuzz_$t.log"
  if ! "$B/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -seed="${FUZZ_SEED:-1}" ${runs:+-runs=$runs} \
        -dict=fuzz/tfspec.dict -artifact_prefix="$B/fuzz-artifacts/$t-" -print_final_stats=1 \
        "$B/fuzz-corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    echo "fuzz_$t: FINDING (see $log and $B/fuzz-artifacts/)"
    tail -n 40 "$log"
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$log" || true
done
exit $status
